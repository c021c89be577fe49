#!/usr/bin/env python3
"""Turns a Milieu binary's --help text (standard input) into a man page (standard output):
the synopsis, the description, each option as an entry, and the sections after them. The
help text is made from each binary's option table, so the page says what --help says.

usage: scripts/manpage.py NAME SECTION TITLE < help.txt > NAME.SECTION"""

import re
import sys


def roff(text: str) -> str:
    """Text safe in roff: backslashes, hyphens of options, and lines that would be requests."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text.startswith((".", "'")) else text


def main() -> None:
    name, section, title = sys.argv[1:4]
    paragraphs = [p for p in re.split(r"\n\s*\n", sys.stdin.read().rstrip("\n"))]
    # Left-aligned and unhyphenated: option names and paths must read as typed.
    out = [f'.TH {name.upper()} {section} "" "Milieu" "{title}"', ".nh", ".ad l", ".SH NAME", f"{name} \\- {roff(title)}", ".SH SYNOPSIS"]
    synopsis = paragraphs.pop(0)
    for line in synopsis.removeprefix("usage:").splitlines():
        out += [".br", roff(line.strip())] if out[-1] != ".SH SYNOPSIS" else [roff(line.strip())]
    out.append(".SH DESCRIPTION")
    while paragraphs and not paragraphs[0].startswith("options:"):
        out += [".PP", roff(" ".join(paragraphs.pop(0).split()))]
    if paragraphs:
        out.append(".SH OPTIONS")
        block = paragraphs.pop(0).removeprefix("options:").strip("\n")
        entries: list[list[str]] = []
        for line in block.splitlines():
            match = re.match(r"^  (-\S+(?: [A-Z][A-Z,0-9]*)?)\s{2,}(.*)$", line) or re.match(r"^  (-\S+(?: [A-Z][A-Z,0-9]*)?)$", line)
            if match:
                entries.append([match.group(1), match.group(2) if match.lastindex == 2 else ""])
            elif entries and line.strip():
                entries[-1][1] += " " + line.strip()
        for option, help_text in entries:
            flag, _, value = option.partition(" ")
            spelled = f"\\fB{roff(flag)}\\fR" + (f" \\fI{roff(value)}\\fR" if value else "")
            out += [".TP", spelled, roff(" ".join(help_text.split()))]
    for paragraph in paragraphs:
        heading = re.match(r"^([a-z][a-z ]*):\s", paragraph)
        if heading:
            out += [f".SH {heading.group(1).upper()}", roff(" ".join(paragraph[heading.end():].split()))]
        else:
            out += [".SH NOTES" if ".SH NOTES" not in out else ".PP", roff(" ".join(paragraph.split()))]
    print("\n".join(out))


main()
