// environment/Dockerfile of an exported task: kgate's sandbox (Debian, python3, the user `agent`,
// work directory /home/agent/work) plus node for the verifier, and the condition's files. FROM a
// build argument: debian:bookworm-slim for Harbor users, the local kgate sandbox image in tests.
// The image's user stays root: Harbor uploads solution/ and tests/ with `docker compose cp` (owned
// by root) and its oracle runs `chmod +x /solution/solve.sh`, which a non-root user may not do.

const EXPORT_BASE = "debian:bookworm-slim";
export const WORKDIR = "/home/agent/work";
/** Home folders that receive the skills: root's (Harbor runs agents as the image's user) and agent's. */
const SKILL_OWNERS = ["/root", "/home/agent"];
/** Folder of environment/ copied into the work directory. */
export const WORKDIR_CONTEXT = "workdir";
/** Folder of environment/ holding the skills (BenchFlow layout). */
export const SKILLS_CONTEXT = "skills";

/**
 * Where agent CLIs discover skills, relative to the home folder (SkillsBench copies the same
 * folder to each; kgate's installed harnesses use .claude/skills and .agents/skills).
 */
export const SKILL_HOMES = [
  ".claude/skills",
  ".codex/skills",
  ".opencode/skill",
  ".goose/skills",
  ".factory/skills",
  ".agents/skills",
  ".gemini/skills",
];

/**
 * The base and the packages, the same steps in the agent's image and the training export's verifier
 * image (Docker builds them once for both): bash, python3, node from Debian, the user agent, the work
 * directory and Harbor's log folders.
 */
function packages(): string {
  return `ARG BASE=${EXPORT_BASE}
FROM \${BASE}
USER root
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update \\
 && apt-get install -y --no-install-recommends bash coreutils ca-certificates python3 nodejs \\
 && apt-get clean \\
 && rm -rf /var/lib/apt/lists/* \\
 && (id -u agent >/dev/null 2>&1 || useradd --uid 1000 --user-group --create-home --shell /bin/bash agent) \\
 && mkdir -p ${WORKDIR} /logs/agent /logs/verifier \\
 && chown agent:agent ${WORKDIR} \\
 && chmod 0777 /logs/agent /logs/verifier
`;
}

export function dockerfile(options: { task: string; condition: string; skills: boolean }): string {
  const skillCopies = options.skills
    ? SKILL_OWNERS.flatMap((home) =>
        SKILL_HOMES.map((dir) => `COPY ${SKILLS_CONTEXT}/ ${home}/${dir}/\n`),
      ).join("")
    : "";
  return `# kgate export: task ${options.task}, condition ${options.condition}. The agent's image: no
# reference answer, verifier or solution (Harbor uploads tests/ after the agent phase).
${packages()}COPY --chown=1000:1000 ${WORKDIR_CONTEXT}/ ${WORKDIR}/
${skillCopies}ENV LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1
WORKDIR ${WORKDIR}
`;
}

/**
 * tests/Dockerfile of a training export: Harbor's separate verifier environment (built from tests/,
 * which it then never uploads): the same packages, the tests at /tests. The agent's outputs arrive
 * as artifacts at their paths in the work directory.
 */
export function verifierDockerfile(options: { task: string; condition: string }): string {
  return `# kgate export: the verifier of task ${options.task}, condition ${options.condition} (Harbor's
# separate verifier environment: the agent never runs here).
${packages()}COPY . /tests/
RUN chmod 0755 /tests/test.sh && mkdir -p /logs/artifacts
ENV LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1
WORKDIR ${WORKDIR}
`;
}
