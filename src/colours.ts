// Terminal colours only where a person reads them: stdout is a TTY, NO_COLOR is unset (FORCE_COLOR
// forces them). picocolors alone also colours under CI=true, which garbles logs and machine output.
import picocolors from "picocolors";

const env = process.env;
const enabled =
  "FORCE_COLOR" in env || (!("NO_COLOR" in env) && process.stdout.isTTY === true && env.TERM !== "dumb");

export const pc = picocolors.createColors(enabled);
