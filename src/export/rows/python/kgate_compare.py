"""kgate's comparison of a reply with a reference answer (standard library only, Python >= 3.9).

The reply's fenced blocks labelled with output paths become output files; each is parsed as kgate's
verifiers parse it (strict RFC 4180 CSV with typed columns, JSON with its schema, text) and compared
with the reference answer: numbers within max(abs, rel * |expected|) plus a few units of double
rounding, strings after the declared normalisation, rows by key. JavaScript's rules are kept where
they differ from Python's (whitespace, UTF-16 lengths, number formatting), so that the verdicts equal
kgate's; a parity test holds them to it.
"""

import json
import math
import re
import unicodedata

# ECMAScript's WhiteSpace and LineTerminator code points: its \\s, and what trim() removes.
JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_SPACE_RUN = re.compile("[" + re.escape(JS_SPACE) + "]+")
_NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")
_ROUNDING_SLACK = 4 * 2.220446049250313e-16
_MAX_SAFE = 9007199254740991
REPLY_CAP = 4 * 1024 * 1024
MAX_JSON_DEPTH = 200
EMPTY_ARRAY = ("[]",)
EMPTY_OBJECT = ("{}",)


class Problem(Exception):
    """An output that cannot be read: a format failure with its reason."""


def utf16_len(text):
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def well_formed(text):
    """The text as JavaScript turns it into UTF-8: a lone surrogate becomes U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def js_trim(text):
    return text.strip(JS_SPACE)


def normalise(text, steps):
    if "nfkc" in steps:
        text = unicodedata.normalize("NFKC", text)
    if "collapse-whitespace" in steps:
        text = _JS_SPACE_RUN.sub(" ", text)
    if "trim" in steps:
        text = js_trim(text)
    if "lowercase" in steps:
        text = text.lower()
    return text


def js_number(value):
    """String(value) of a JavaScript number."""
    if value == 0:
        return "0"
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    sign = "-" if exponent.startswith("-") else "+"
    return mantissa + "e" + sign + exponent.lstrip("+-").lstrip("0")


def is_number(value):
    return type(value) in (int, float)


def numbers_match(actual, expected, tolerance):
    if math.isnan(actual) or math.isnan(expected):
        return False
    if math.isinf(actual) or math.isinf(expected):
        return actual == expected
    bound = max(tolerance["abs"], tolerance["rel"] * abs(expected))
    slack = _ROUNDING_SLACK * max(abs(actual), abs(expected))
    return abs(actual - expected) <= bound + slack


def leaves_match(actual, expected, rule):
    if is_number(actual) and is_number(expected):
        return numbers_match(float(actual), float(expected), rule["tolerance"])
    return type(actual) is type(expected) and actual == expected


# --- the reply's fenced blocks (CommonMark fences, as kgate's inline form reads them) ---


def _opening(line):
    spaces = len(line) - len(line.lstrip(" "))
    if spaces > 3 or spaces >= len(line) or line[spaces] not in "`~":
        return None
    char, end = line[spaces], spaces
    while end < len(line) and line[end] == char:
        end += 1
    if end - spaces < 3 or "`" in line[end:]:
        return None
    start = end
    while start < len(line) and line[start] in " \t":
        start += 1
    stop = start
    while stop < len(line) and line[stop] not in JS_SPACE and line[stop] != "`":
        stop += 1
    return line[spaces:end], line[start:stop]


def fenced_blocks(text):
    lines = re.split(r"\r?\n", text)
    blocks, i = [], 0
    while i < len(lines):
        opened = _opening(lines[i])
        if opened is None:
            i += 1
            continue
        fence, label = opened
        closing = re.compile(" {0,3}" + re.escape(fence[0]) + "{%d,}[ \t]*" % len(fence))
        j, body = i + 1, []
        while j < len(lines) and not closing.fullmatch(lines[j]):
            body.append(lines[j])
            j += 1
        text_body = "\n".join(body) + "\n" if body else ""
        blocks.append({"label": label, "body": text_body, "closed": j < len(lines), "line": i + 1})
        i = j + 1
    return blocks


def reply_outputs(outputs, reply):
    """Each declared output from the reply: (path, text) or (path, Problem reason)."""
    if utf16_len(reply) > REPLY_CAP:
        units = reply.encode("utf-16-le", "surrogatepass")[: 2 * REPLY_CAP]
        reply = units.decode("utf-16-le", "surrogatepass")
    blocks = fenced_blocks(reply)
    found = {}
    for output in outputs:
        path = output["path"]
        labelled = [b for b in blocks if b["label"] in (path, "./" + path)]
        if not labelled:
            found[path] = Problem("was not produced (the reply has no fenced block labelled %s)" % path)
        elif len(labelled) > 1:
            found[path] = Problem("was rejected: the reply has %d blocks labelled %s" % (len(labelled), path))
        elif not labelled[0]["closed"]:
            found[path] = Problem("was rejected: the block labelled %s is never closed" % path)
        else:
            body = well_formed(labelled[0]["body"])
            if len(body.encode("utf-8")) > output["maxBytes"]:
                found[path] = Problem("was rejected: the block labelled %s is over its maxBytes" % path)
            else:
                found[path] = body
    return found


# --- CSV (strict RFC 4180: quotes, doubled quotes, CRLF or LF; a quote in an unquoted field refused) ---


def read_csv(text):
    """Header and records; raises Problem naming the line of the first problem."""
    i, n, line, header, records = 0, len(text), 1, None, []
    while i < n:
        start_line, fields = line, []
        while True:
            if text[i : i + 1] == '"':
                value, j = "", i + 1
                while True:
                    q = text.find('"', j)
                    if q < 0:
                        raise Problem("line %d: quoted field is never closed" % start_line)
                    value += text[j:q]
                    line += text.count("\n", j, q)
                    if text[q + 1 : q + 2] == '"':
                        value, j = value + '"', q + 2
                        continue
                    i = q + 1
                    break
                if i < n and text[i] not in ",\n\r":
                    raise Problem("line %d: unexpected text after a closing quote" % line)
                fields.append(value)
            else:
                j = i
                while j < n and text[j] not in ",\n\r":
                    j += 1
                if '"' in text[i:j]:
                    raise Problem("line %d: a quote inside an unquoted field" % line)
                fields.append(text[i:j])
                i = j
            if text[i : i + 1] == ",":
                i += 1
                continue
            if text[i : i + 1] == "\r":
                i += 1
            if text[i : i + 1] == "\n":
                i += 1
            line += 1
            break
        if fields == [""]:
            continue
        if header is None:
            header = (fields, start_line)
        elif len(fields) != len(header[0]):
            raise Problem("line %d: %d field(s), the header (line %d) has %d" % (start_line, len(fields), header[1], len(header[0])))
        else:
            records.append((fields, start_line))
    if header is None:
        raise Problem("no header line")
    return header[0], records


# --- tables: rows of typed leaves by row id (CSV by key or position, JSON by pointer) ---

_BOOLEAN = {"true": True, "false": False, "1": True, "0": False}
_WHAT = {"string": "a string", "boolean": "a boolean (true/false/1/0)", "number": "a finite number", "integer": "an integer"}


def _rule(output, column):
    compare = output.get("compare", {})
    return {"tolerance": column.get("tolerance") or compare["tolerance"], "normalise": column.get("normalise", compare["normalise"])}


def _cell_from_text(text, column, rule):
    if column["type"] == "string":
        return normalise(text, rule["normalise"])
    trimmed = js_trim(text)
    if column["type"] == "boolean":
        return _BOOLEAN.get(trimmed.lower())
    if not _NUMBER.match(trimmed):
        return None
    value = float(trimmed)
    if math.isinf(value) or (column["type"] == "integer" and not value.is_integer()):
        return None
    return value


def _cell_from_value(value, column, rule):
    kind = column["type"]
    if kind == "string":
        return normalise(value, rule["normalise"]) if type(value) is str else None
    if kind == "boolean":
        return value if type(value) is bool else None
    if not is_number(value) or not math.isfinite(value):
        return None
    return None if kind == "integer" and not float(value).is_integer() else float(value)


def _key_part(leaf):
    if type(leaf) is bool:
        return "true" if leaf else "false"
    return js_number(leaf) if is_number(leaf) else str(leaf)


class Table:
    """values[c][row] by row id (insertion order), with a rule per compared column."""

    def __init__(self, rules):
        self.rules, self.index, self.values = rules, {}, [[] for _ in rules]


def _rows_table(output, rows):
    """Typed rows (leaves in declared column order) keyed as kgate keys them; raises Problem."""
    names = [c["name"] for c in output["columns"]]
    key = [names.index(k) for k in output.get("key") or []]
    compared = [i for i in range(len(names)) if i not in key] if key else list(range(len(names)))
    table = Table([_rule(output, output["columns"][i]) for i in compared])
    for leaves, where in rows:
        row_id = "\u001f".join(_key_part(leaves[i]) for i in key) if key else str(len(table.index))
        if row_id in table.index:
            raise Problem("%s: duplicate key" % where)
        table.index[row_id] = len(table.index)
        for c, i in enumerate(compared):
            table.values[c].append(leaves[i])
    return table


def csv_table(output, text):
    header, records = read_csv(text)
    declared = [c["name"] for c in output["columns"]]
    if len(set(header)) != len(header) or sorted(header) != sorted(declared):
        raise Problem("line 1: the columns are %s; expected %s" % (",".join(header[:50]), ",".join(declared)))
    positions = [header.index(name) for name in declared]
    rules = [_rule(output, c) for c in output["columns"]]
    rows = []
    for fields, line in records:
        leaves = []
        for i, column in enumerate(output["columns"]):
            cell = _cell_from_text(fields[positions[i]], column, rules[i])
            if cell is None:
                raise Problem("line %d: %s: %s is not %s" % (line, column["name"], json.dumps(fields[positions[i]]), _WHAT[column["type"]]))
            leaves.append(cell)
        rows.append((leaves, "line %d" % line))
    return _rows_table(output, rows)


def answer_table(output, answer):
    """The reference answer (what kgate's solver returned) as a table, checked like a reply."""
    if output["format"] == "text":
        return text_table(output, answer)
    if output["format"] == "json":
        return json_table(output, answer)
    rules = [_rule(output, c) for c in output["columns"]]
    rows = []
    for r, row in enumerate(answer):
        leaves = [_cell_from_value(row.get(c["name"]), c, rules[i]) for i, c in enumerate(output["columns"])]
        if any(leaf is None for leaf in leaves):
            raise Problem("row %d of the reference answer breaks the output contract" % (r + 1))
        rows.append((leaves, "row %d" % (r + 1)))
    return _rows_table(output, rows)


def text_table(output, text):
    table = Table([{"tolerance": {"abs": 0, "rel": 0}, "normalise": output["compare"]["normalise"]}])
    table.index["text"] = 0
    table.values[0].append(normalise(text, output["compare"]["normalise"]))
    return table


# --- JSON: strict parse, depth, the schema (the subset kgate exports to Python), leaves by pointer ---

SCHEMA_KEYWORDS = {"type", "properties", "required", "additionalProperties", "items", "enum", "title", "description", "$schema", "$comment"}


def _no_constant(name):
    raise ValueError("%s is not JSON" % name)


def parse_json(text):
    try:
        return json.loads(text, parse_int=float, parse_constant=_no_constant)
    except RecursionError:
        raise Problem("nested deeper than %d levels" % MAX_JSON_DEPTH)
    except ValueError as err:
        raise Problem("invalid JSON: %s" % err)


def too_deep(document):
    stack = [(document, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth >= MAX_JSON_DEPTH:
                return True
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, depth + 1) for child in children)
    return False


def _type_ok(kind, value):
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return type(value) is str
    if kind == "boolean":
        return type(value) is bool
    if kind == "null":
        return value is None
    if not is_number(value) or not math.isfinite(value):
        return False
    return kind == "number" or (float(value).is_integer() and abs(value) <= _MAX_SAFE)


def schema_problem(schema, value, pointer="(root)"):
    """Why the value breaks the schema, as zod's z.fromJSONSchema decides for this subset, or None."""
    if not _type_ok(schema["type"], value):
        return "%s: expected %s" % (pointer, schema["type"])
    if "enum" in schema and value not in schema["enum"]:
        return "%s: not one of %s" % (pointer, schema["enum"])
    if schema["type"] == "array" and "items" in schema:
        for i, item in enumerate(value):
            problem = schema_problem(schema["items"], item, "%s/%d" % (pointer.replace("(root)", ""), i))
            if problem:
                return problem
    if schema["type"] == "object":
        properties = schema.get("properties", {})
        for name in schema.get("required", []):
            if name in properties and name not in value:
                return "%s: %s is required" % (pointer, name)
        if schema.get("additionalProperties") is False:
            extra = [k for k in value if k not in properties]
            if extra:
                return "%s: unrecognized key %s" % (pointer, json.dumps(extra[0]))
        for name, sub in properties.items():
            if name in value:
                problem = schema_problem(sub, value[name], "%s/%s" % (pointer.replace("(root)", ""), name))
                if problem:
                    return problem
    return None


def _escape(segment):
    return segment.replace("~", "~0").replace("/", "~1")


def json_table(output, document):
    if too_deep(document):
        raise Problem("nested deeper than %d levels" % MAX_JSON_DEPTH)
    problem = schema_problem(output["schema"], document)
    if problem:
        raise Problem("does not match the schema: %s" % problem)
    compare = output["compare"]
    table = Table([{"tolerance": compare["tolerance"], "normalise": compare["normalise"]}])
    patterns = [([] if p == "" else p[1:].split("/"), fields) for p, fields in compare.get("keyedArrays", {}).items()]

    def put(pointer, leaf):
        table.index[pointer] = len(table.values[0])
        table.values[0].append(leaf)

    def key_fields(segments):
        for pattern, fields in patterns:
            if len(pattern) == len(segments) and all(p in ("*", s) for p, s in zip(pattern, segments)):
                return fields
        return None

    def walk(value, segments):
        pointer = "".join("/" + s for s in segments)
        if isinstance(value, list):
            if not value:
                put(pointer, EMPTY_ARRAY)
            fields, seen = key_fields(segments), set()
            for i, element in enumerate(value):
                segment = str(i)
                if fields:
                    if not isinstance(element, dict):
                        raise Problem("%s/%d: a keyed array element must be an object" % (pointer, i))
                    parts = []
                    for field in fields:
                        key = element.get(field)
                        if key is None or isinstance(key, (dict, list)):
                            raise Problem('%s/%d: key field "%s" is missing or not a plain value' % (pointer, i, field))
                        text = normalise(key, compare["normalise"]) if type(key) is str else _key_part(key)
                        parts.append("%s=%s" % (field, text))
                    segment = _escape("[%s]" % ",".join(parts))
                    if segment in seen:
                        raise Problem("%s/%d: duplicate key %s" % (pointer, i, ", ".join(parts)))
                    seen.add(segment)
                walk(element, segments + [segment])
        elif isinstance(value, dict):
            if not value:
                put(pointer, EMPTY_OBJECT)
            for key, child in value.items():
                walk(child, segments + [_escape(key)])
        elif type(value) is str:
            put(pointer, normalise(value, compare["normalise"]))
        else:
            put(pointer, value)

    walk(document, [])
    return table


def compare_tables(expected, actual):
    """(compared, differing) over every column of every row present on either side."""
    compared = differing = 0
    columns = range(len(expected.rules))
    for row_id in list(expected.index) + [r for r in actual.index if r not in expected.index]:
        e, a = expected.index.get(row_id), actual.index.get(row_id)
        for c in columns:
            compared += 1
            want = None if e is None else expected.values[c][e]
            got = None if a is None else actual.values[c][a]
            if (e is None or a is None) or not leaves_match(got, want, expected.rules[c]):
                differing += 1
    return compared, differing


def output_table(output, text):
    """The reply's text for one output as a table; raises Problem (a format failure)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if js_trim(text) == "":
        raise Problem("is empty")
    if output["format"] == "csv":
        return csv_table(output, text)
    if output["format"] == "json":
        return json_table(output, parse_json(text))
    return text_table(output, text)
