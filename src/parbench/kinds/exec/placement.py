"""Where a `{VAR}` stands in a shell command, and its value written so that the shell reads it
there as the literal text it is: the one place where exec turns a value into shell text.

A small scanner of POSIX sh (and bash's `$'…'`, `$[…]`, `((…))`) follows the contexts a command
opens: quotes, `$(…)`, `${…}`, arithmetic, backticks, `#` comments and here-documents. Each
value is quoted for the context of its placeholder; where no quoting is both safe and the same
in sh and bash (backticks, a `$'…'` value holding `'` or a backslash, a non-integer in
arithmetic, a here-document's delimiter), the template is refused with a one-line reason. The
substituted command is then scanned again, and a value whose quoted text would leave its
context (a line `EOF` in a here-document, a newline after a `#`) is refused as well: the
second scan, not the quoting, is what guarantees that no value ever becomes shell syntax.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

COMMAND, CMDSUB, SINGLE, DOUBLE, ANSI, BRACE, ARITH, BACKTICK, COMMENT, HEREDOC, LITERAL_HEREDOC = (
    "command", "$(…)", "'…'", '"…"', "$'…'", "${…}", "arithmetic", "backticks", "# comment",
    "here-document", "quoted here-document")
_COMMAND_LIKE = (COMMAND, CMDSUB)
_METACHARACTERS = " \t\n;&|<>()"
_INTEGER = re.compile(r"[+-]?[0-9]+")


class Unplaceable(ValueError):
    """A placeholder, or a value, that cannot stand where it is: one line saying why."""


@dataclass
class _Frame:
    context: str
    serial: int
    in_double: bool = False       # a ${…} inside "…" (its single quotes are literal there)
    depth: int = 0                # parentheses open inside a $(…) or an arithmetic expression
    cases: int = 0                # `case` words not closed by `esac`: a `)` there ends a pattern
    closer: str = "))"            # what ends an arithmetic expression: `))`, or `]` for bash's $[…]
    end: int = -1                 # a here-document body: where its delimiter line starts
    resume: int = -1              # … and where the command goes on after that line
    delimiter: str = ""            # … and the word that ends it


@dataclass
class _Scan:
    """The contexts of a shell command: `states[i]` is the stack of frames that reads char i."""
    text: str
    holes: dict[int, int] = field(default_factory=dict)      # placeholder start → end (opaque text)
    states: list = field(default_factory=list)
    contexts: dict[int, tuple[str, bool]] = field(default_factory=dict)   # hole → (context, in_double)
    refusals: dict[int, str] = field(default_factory=dict)               # hole → why it cannot be there
    delimiters: dict[int, str] = field(default_factory=dict)             # hole in a here-document → its delimiter

    def __post_init__(self):
        self.stack = [_Frame(COMMAND, 0)]
        self.serial = 0
        self.pending: list[tuple[str, bool, bool]] = []      # here-documents opened on this line
        self.bodies: list[tuple[int, int, int, bool, str]] = []   # (start, end, resume, literal, delimiter) to read
        self.states = [()] * (len(self.text) + 1)
        i = 0
        while i < len(self.text):
            i = self._step(i)
        self.states[len(self.text)] = self._snapshot()

    # --- plumbing -------------------------------------------------------------------------
    def _snapshot(self) -> tuple:
        return tuple((f.context, f.serial) for f in self.stack)

    def _push(self, context: str, **state) -> None:
        self.serial += 1
        self.stack.append(_Frame(context, self.serial, **state))

    def _at(self, i: int, prefix: str) -> bool:
        return self.text.startswith(prefix, i)

    def _word_start(self, i: int) -> bool:
        return i == 0 or self.text[i - 1] in _METACHARACTERS

    def _keyword(self, i: int, word: str) -> bool:
        end = i + len(word)
        return (self._word_start(i) and self._at(i, word)
                and (end == len(self.text) or self.text[end] in _METACHARACTERS))

    def _refuse(self, hole: int, why: str) -> int:
        self.refusals[hole] = why
        return self.holes[hole]

    def _step(self, i: int) -> int:
        heredoc = next((f for f in reversed(self.stack) if f.context in (HEREDOC, LITERAL_HEREDOC)), None)
        if heredoc is not None and i == heredoc.end:
            return self._end_heredoc(heredoc)
        frame = self.stack[-1]
        snapshot = self._snapshot()
        if i in self.holes:
            self.contexts[i] = (frame.context, frame.in_double)
            if frame.context in (HEREDOC, LITERAL_HEREDOC):
                self.delimiters[i] = frame.delimiter
            if frame.context == BACKTICK:
                self._refuse(i, "stands inside backticks, whose quoting differs between shells: write $(…) instead")
            end = self.holes[i]
        else:
            if frame.context == COMMENT and self.text[i] == "\n":
                self.stack.pop()          # the newline ends the comment and is read by the command around it
                frame = self.stack[-1]
            end = i + getattr(self, "_in_" + _HANDLERS[frame.context])(i, frame)
        for j in range(i, min(end, len(self.text))):
            self.states[j] = snapshot
        return end

    # --- what each context reads ----------------------------------------------------------
    def _escape(self, i: int) -> int:
        """A backslash and the character it escapes; a placeholder right after it would lose
        its value's first character to the escape."""
        if i + 1 in self.holes:
            return self._refuse(i + 1, "follows a backslash, which would escape its value's first character") - i
        return 2

    def _dollar(self, i: int, in_double: bool) -> int:
        if i + 1 in self.holes:
            return self._refuse(i + 1, "follows a $, so its value would name a variable or open $'…': "
                                       "put a space or a quote before it") - i
        if self._at(i, "$(("):
            self._push(ARITH)
            return 3
        if self._at(i, "$("):
            self._push(CMDSUB)
            return 2
        if self._at(i, "$["):
            self._push(ARITH, closer="]")
            return 2
        if self._at(i, "${"):
            name = i + 2 + (self.text[i + 2:i + 3] in ("#", "!"))
            self._push(BRACE, in_double=in_double)
            if name in self.holes:
                return self._refuse(name, "would be the name of a ${…}: a value cannot name a variable") - i
            return 2
        if not in_double and self._at(i, "$'"):
            self._push(ANSI)
            return 2
        if not in_double and self._at(i, '$"'):
            self._push(DOUBLE)
            return 2
        return 1

    def _in_command(self, i: int, frame: _Frame) -> int:
        char = self.text[i]
        if char == "\\":
            return self._escape(i)
        if char in "'\"`":
            self._push({"'": SINGLE, '"': DOUBLE, "`": BACKTICK}[char])
            return 1
        if char == "$":
            return self._dollar(i, in_double=False)
        if char == "#" and self._word_start(i):
            self._push(COMMENT)
            return 1
        if self._at(i, "<<<"):
            return 3                 # a here-string: its word is a word like any other, not a delimiter
        if self._at(i, "<<"):
            return self._heredoc_operator(i)
        if self._at(i, "(("):
            self._push(ARITH)        # bash's arithmetic command; as a pair of subshells it holds no value
            return 2
        if char == "(":
            frame.depth += 1
        elif char == ")" and frame.context == CMDSUB:
            if frame.depth:
                frame.depth -= 1
            elif not frame.cases:
                self.stack.pop()
        elif char == "\n" and self.pending:
            return self._start_heredocs(i)
        elif self._keyword(i, "case"):
            frame.cases += 1
            return 4
        elif self._keyword(i, "esac"):
            frame.cases = max(0, frame.cases - 1)
            return 4
        return 1

    def _in_double(self, i: int, frame: _Frame) -> int:
        char = self.text[i]
        if char == "\\":
            return self._escape(i)
        if char == '"':
            self.stack.pop()
        elif char == "`":
            self._push(BACKTICK)
        elif char == "$":
            return self._dollar(i, in_double=True)
        return 1

    def _in_single(self, i: int, frame: _Frame) -> int:
        if self.text[i] == "'":
            self.stack.pop()
        return 1

    def _in_ansi(self, i: int, frame: _Frame) -> int:
        if self.text[i] == "\\":
            return self._escape(i)
        if self.text[i] == "'":
            self.stack.pop()
        return 1

    def _in_backtick(self, i: int, frame: _Frame) -> int:
        if self.text[i] == "\\":
            return self._escape(i)
        if self.text[i] == "`":
            self.stack.pop()
        return 1

    def _in_brace(self, i: int, frame: _Frame) -> int:
        char = self.text[i]
        if char == "\\":
            return self._escape(i)
        if char == "}":
            self.stack.pop()
        elif char == '"':
            self._push(DOUBLE)
        elif char == "'" and not frame.in_double:
            self._push(SINGLE)
        elif char == "`":
            self._push(BACKTICK)
        elif char == "$":
            return self._dollar(i, in_double=frame.in_double)
        return 1

    def _in_arithmetic(self, i: int, frame: _Frame) -> int:
        char = self.text[i]
        if char == "\\":
            return self._escape(i)
        if char == "(":
            frame.depth += 1
        elif char == ")" and frame.depth:
            frame.depth -= 1
        elif frame.closer == "]" and char == "]":
            self.stack.pop()
        elif frame.closer == "))" and self._at(i, "))"):
            self.stack.pop()
            return 2
        elif char == '"':
            self._push(DOUBLE)
        elif char == "`":
            self._push(BACKTICK)
        elif char == "$":
            return self._dollar(i, in_double=True)
        return 1

    def _in_heredoc(self, i: int, frame: _Frame) -> int:
        char = self.text[i]
        if frame.context == LITERAL_HEREDOC:
            return 1
        if char == "\\":
            return self._escape(i)
        if char == "`":
            self._push(BACKTICK)
        elif char == "$":
            return self._dollar(i, in_double=True)
        return 1

    def _in_comment(self, i: int, frame: _Frame) -> int:
        return 1

    # --- here-documents -------------------------------------------------------------------
    def _heredoc_operator(self, i: int) -> int:
        """`<<[-] WORD`: the delimiter is read now, the body from the end of this line."""
        j = i + 2
        strip = self._at(j, "-")
        j += strip
        while j < len(self.text) and self.text[j] in " \t":
            j += 1
        delimiter, literal, start = "", False, j
        while j < len(self.text) and self.text[j] not in _METACHARACTERS:
            if j in self.holes:
                self._refuse(j, "would be a here-document's delimiter: where a body ends cannot come from a value")
                j = self.holes[j]
                continue
            char = self.text[j]
            if char in "'\"":
                close = self.text.find(char, j + 1)
                close = len(self.text) if close < 0 else close
                delimiter += self.text[j + 1:close]
                literal, j = True, close + 1
            elif char == "\\":
                delimiter += self.text[j + 1:j + 2]
                literal, j = True, j + 2
            else:
                delimiter += char
                j += 1
        for hole in [h for h in self.holes if start <= h < j and h not in self.refusals]:
            self._refuse(hole, "would be a here-document's delimiter: where a body ends cannot come from a value")
        self.pending.append((delimiter, strip, literal))
        return j - i

    def _start_heredocs(self, newline: int) -> int:
        """At the end of the line that opened them, each pending body runs until its delimiter line."""
        position = newline + 1
        for delimiter, strip, literal in self.pending:
            start = position
            while True:
                line_end = self.text.find("\n", position)
                line_end = len(self.text) if line_end < 0 else line_end
                line = self.text[position:line_end]
                if (line.lstrip("\t") if strip else line) == delimiter:
                    end, resume = position, min(line_end + 1, len(self.text))
                    break
                if line_end >= len(self.text):
                    end = resume = len(self.text)
                    break
                position = line_end + 1
            self.bodies.append((start, end, resume, literal, delimiter))
            position = resume
        self.pending = []
        self._next_body()
        return 1

    def _next_body(self) -> None:
        if self.bodies:
            start, end, resume, literal, delimiter = self.bodies.pop(0)
            self._push(LITERAL_HEREDOC if literal else HEREDOC, end=end, resume=resume, delimiter=delimiter)

    def _end_heredoc(self, heredoc: _Frame) -> int:
        """The delimiter line, read by the command around the body: whatever the body left open
        ends with it (so a value that holds the delimiter's line is seen to leave the body)."""
        while self.stack[-1] is not heredoc:
            self.stack.pop()
        self.stack.pop()
        snapshot = self._snapshot()
        for j in range(heredoc.end, heredoc.resume):
            self.states[j] = snapshot
        self._next_body()
        return heredoc.resume


_HANDLERS = {COMMAND: "command", CMDSUB: "command", DOUBLE: "double", SINGLE: "single", ANSI: "ansi",
             BACKTICK: "backtick", BRACE: "brace", ARITH: "arithmetic", HEREDOC: "heredoc",
             LITERAL_HEREDOC: "heredoc", COMMENT: "comment"}


def _single_quoted(value: str) -> str:
    return value.replace("'", "'\\''")


def _quoted(value: str, context: str, in_double: bool, name: str) -> str:
    """The value as literal text where a `context` context reads it."""
    if context in _COMMAND_LIKE or (context == BRACE and not in_double):
        return "'" + _single_quoted(value) + "'"
    if context == SINGLE:
        return _single_quoted(value)
    if context == DOUBLE:
        return re.sub(r'([\\$`"])', r"\\\1", value)
    if context == BRACE:
        if "'" in value:
            raise Unplaceable(f"{{{name}}} stands inside a ${{…}} within \"…\", where bash pairs ' and sh does not: its "
                              f"value {_shown(value)} holds '; write \"{{{name}}}\" outside the ${{…}} instead")
        return re.sub(r'([\\$`"}])', r"\\\1", value)
    if context == HEREDOC:
        return re.sub(r"([\\$`])", r"\\\1", value)
    if context == ANSI and ("'" in value or "\\" in value):
        raise Unplaceable(f"{{{name}}} stands inside $'…', which sh and bash read differently: its value "
                          f"{_shown(value)} holds ' or \\; write '{{{name}}}' or \"{{{name}}}\" instead")
    if context == ARITH and not _INTEGER.fullmatch(value):
        raise Unplaceable(f"{{{name}}} stands inside an arithmetic expression, which the shell evaluates: only an "
                          f"integer can go there, got {_shown(value)}")
    return value          # a comment, a quoted here-document, a $'…' without ' or \: read literally


def _refuse_a_line_like_the_delimiter(value: str, delimiter: str | None, name: str) -> None:
    """In a here-document, a line of the value that begins with the delimiter: bash ends a body
    inside $(…) at such a line (`EOFx` after `<<EOF` did, found by the fuzz suite), and the rest of
    the value would run as commands. Refused whether or not this shell would, as every value is."""
    if delimiter and any(line.lstrip("\t").startswith(delimiter) for line in value.split("\n")):
        raise Unplaceable(f"the value {_shown(value)} of {{{name}}} cannot stand in the heredoc of the command: "
                          f"{_WHY_IT_LEAVES[HEREDOC]}")


def _shown(value: str) -> str:
    return ascii(value)[:60]


def substitute(template: str, parameters: dict[str, str]) -> str:
    """The template with each `{name}` replaced, in one left-to-right pass, by its value quoted
    for the context it stands in; Unplaceable (one line) where that cannot be done safely."""
    if not parameters:
        return template
    pattern = re.compile("|".join(re.escape(f"{{{name}}}") for name in sorted(parameters)))
    holes = {m.start(): m.end() for m in pattern.finditer(template)}
    if not holes:
        return template
    scan = _Scan(template, holes)
    pieces, spans, position, length = [], [], 0, 0
    for start, end in sorted(holes.items()):
        name = template[start + 1:end - 1]
        if start in scan.refusals:
            raise Unplaceable(f"{{{name}}} {scan.refusals[start]} (in {_shown(template)})")
        context, in_double = scan.contexts[start]
        _refuse_a_line_like_the_delimiter(parameters[name], scan.delimiters.get(start), name)
        text = _quoted(parameters[name], context, in_double, name)
        pieces.append(template[position:start])
        length += start - position
        spans.append((length, length + len(text), name, context))
        pieces.append(text)
        length += len(text)
        position = end
    pieces.append(template[position:])
    command = "".join(pieces)
    _check_each_value_stays(command, spans, parameters)
    return command


_WHY_IT_LEAVES = {COMMENT: "a newline in it would end the comment, and the rest would run",
                  HEREDOC: "the body would end at a line of it that is the delimiter, or begin with it",
                  LITERAL_HEREDOC: "the body would end at a line of it that is the delimiter, or begin with it"}


def _check_each_value_stays(command: str, spans: list[tuple[int, int, str, str]], parameters: dict[str, str]) -> None:
    """Scanned again, every quoted value must leave the shell where it found it and never go
    below the context it started in: otherwise a part of it would be read as syntax."""
    states = _Scan(command).states
    contexts_of = lambda state: [context for context, _ in state]
    for start, end, name, context in spans:
        before = states[start]
        # A ' inside '…' can only be written by closing the quote and opening another ('\'').
        floor = before[:-1] if context == SINGLE else before
        back = contexts_of(states[end]) == contexts_of(before) if context == SINGLE else states[end] == before
        if before[-1][0] != context or not back or any(states[j][:len(floor)] != floor for j in range(start, end)):
            raise Unplaceable(f"the value {_shown(parameters[name])} of {{{name}}} cannot stand in the {context} of "
                              f"the command: {_WHY_IT_LEAVES.get(context, 'its text would end it')}")


def substitute_bare_words(template: str, parameters: dict[str, str], quote, shell: str) -> str:
    """For a shell whose quoting is not POSIX's (fish): each value quoted by `quote`, and only
    where it stands outside every quote, expansion and comment (placement's scan tells where);
    Unplaceable anywhere else, since parbench does not know that shell's rules there."""
    if not parameters:
        return template
    pattern = re.compile("|".join(re.escape(f"{{{name}}}") for name in sorted(parameters)))
    holes = {m.start(): m.end() for m in pattern.finditer(template)}
    scan = _Scan(template, holes)
    pieces, position = [], 0
    for start, end in sorted(holes.items()):
        name = template[start + 1:end - 1]
        if start in scan.refusals or scan.contexts[start][0] != COMMAND:
            raise Unplaceable(f"{{{name}}} stands inside quotes or an expansion, where parbench does not know "
                              f"{shell}'s rules: write it as a word of its own (in {_shown(template)})")
        pieces += [template[position:start], quote(parameters[name])]
        position = end
    return "".join(pieces) + template[position:]
