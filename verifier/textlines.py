"""Line numbering of upstream files exactly as GitHub and git count it: split at
"\n" only (str.splitlines also splits at form feeds, U+2028, \x1c... and would
shift `#Lx` ranges)."""


def source_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # a final newline ends the last line, it does not start a new one
    if "\r" not in text:
        return lines
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
