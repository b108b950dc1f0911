"""exec's commands: hyperfine 1.20's rules for turning a command line into the benchmarks it runs
(parameter lists and scans and the order of their product, names, the reference first), with
every substituted value quoted where it stands in a shell command."""
from __future__ import annotations

import itertools
import re
import shlex
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

from parbench.kinds.exec import placement, shells

# hyperfine refuses a scan of more values than this ("Parameter range is too large").
MAX_SCAN_VALUES = 100_000
I32 = (-(1 << 31), (1 << 31) - 1)


class ExecError(ValueError):
    """A command line hyperfine refuses after parsing it (its exit 1), as one sentence."""


class NotACommandLine(ExecError):
    """What no shell could even pass to hyperfine (a NUL byte): parbench's usage error, exit 2."""


@dataclass
class ExecOptions:
    commands: list[str]
    names: list[str] = field(default_factory=list)
    parameter_lists: list[tuple[str, list[str]]] = field(default_factory=list)   # NAME, its values (tokenize)
    parameter_scan: tuple[str, str, str] | None = None
    step: str | None = None
    shell: str = "sh"                     # a shell command line ("bash --norc"), or "none" (-N)
    prepare: list[str] = field(default_factory=list)
    conclude: list[str] = field(default_factory=list)
    setup: str | None = None
    cleanup: str | None = None
    ignore_failure: str | None = None     # None, "all-non-zero", or hyperfine's list "1,2"
    output: list[str] = field(default_factory=lambda: ["null"])   # per command: null|pipe|inherit|FILE
    input: str | None = None              # a file for the commands' standard input
    expect: str | None = None             # --expect: every run prints this (stripped), or fails
    expect_same: bool = False             # --expect-same: every run prints what the first printed
    reference: str | None = None
    reference_name: str | None = None
    sort: str = "auto"
    prepare_once: str | None = None       # once per parameter set, before any run at it (inputs)
    check: str | None = None              # per parameter set: every run must print what it prints
    expect_file: str | None = None        # per parameter set ({VAR} in the path): every run prints it
    evaluated_values: bool = False        # --allow-evaluated-values: a value may go to sh -c, eval…


@dataclass(frozen=True)
class Command:
    name: str                             # hyperfine's `command` in JSON: the name, or the command line
    display: str                          # the command line with its values (and those it leaves unused)
    argv: tuple[str, ...]
    parameters: tuple[tuple[str, str], ...] = ()
    number: int = 0                       # hyperfine's benchmark number (pairs --prepare, --conclude, --output)
    template: int = -1                    # which of the command lines it came from (-1: the reference)


def tokenize(values: str) -> list[str]:
    """hyperfine's comma list: `\\,` is a comma inside a value and `\\\\` a backslash."""
    tokens, current, chars = [], "", iter(values)
    for char in chars:
        if char == "\\":
            following = next(chars, None)
            current += following if following in (",", "\\") else "\\" + (following or "")
        elif char == ",":
            tokens.append(current)
            current = ""
        else:
            current += char
    return tokens + [current]


def _integer(text: str) -> int | None:
    if re.fullmatch(r"[+-]?[0-9]+", text) and I32[0] <= int(text) <= I32[1]:
        return int(text)
    return None


def _decimal(text: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise ExecError(f"Error while parsing parameter scan arguments (not a number: {text!r})") from None
    if not value.is_finite():
        raise ExecError(f"Error while parsing parameter scan arguments (not a finite number: {text!r})")
    return value


def scan_values(low: str, high: str, step: str | None) -> list[str]:
    """-P's values as hyperfine prints them: integers when MIN, MAX and the step are all integers,
    else decimals keeping their written precision (0.3, 0.5, 0.7); a decimal range needs -D."""
    integers = [_integer(text) for text in (low, high, step or "1")]
    if None not in integers:
        first, last, by = integers
    else:
        first, last = _decimal(low), _decimal(high)
        if step is None:
            raise ExecError("A step size is required when the range bounds are floating point numbers. "
                            "The step size can be specified with the '-D/--parameter-step-size <DELTA>' parameter")
        by = _decimal(step)
    if last < first:
        raise ExecError("Empty parameter range")
    if by == 0:
        raise ExecError("Zero is not a valid parameter step")
    count = (last - first + 1) / by
    if count < 0 or count > MAX_SCAN_VALUES:
        raise ExecError("Parameter range is too large")
    values, value = [], first
    while value <= last:
        values.append(str(value))
        value += by
    return values


def parameter_sets(options: ExecOptions) -> list[tuple[tuple[str, str], ...]]:
    """Every combination, in hyperfine's order. A scan's values go in the outer loop; -L lists
    make a product whose FIRST list varies fastest (the commands vary faster still: see
    `commands_for`)."""
    if options.parameter_scan:
        name, low, high = options.parameter_scan
        return [((name, value),) for value in scan_values(low, high, options.step)]
    names = [name for name, _ in options.parameter_lists]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ExecError(f"Duplicate parameter names: {', '.join(duplicates)}")
    lists = [values for _, values in options.parameter_lists]
    # itertools.product varies its LAST axis fastest: product over the reversed lists, each tuple reversed.
    return [tuple(zip(names, reversed(combo))) for combo in itertools.product(*reversed(lists))]


def substitute(template: str, parameters: dict[str, str]) -> str:
    """Every {name} replaced by its value as written, in one left-to-right pass (a value holding
    `{other}` stays as it is, as in hyperfine): the command's name and display, and -N's words."""
    if not parameters:
        return template
    pattern = re.compile("|".join(re.escape(f"{{{name}}}") for name in sorted(parameters)))
    return pattern.sub(lambda m: parameters[m.group()[1:-1]], template)


def shell_command(template: str, parameters: dict[str, str], shell: str = "sh") -> str:
    """The command line a shell runs: each value quoted for the context it stands in, by that
    shell's rules (placement.py for sh, dash, bash and zsh; shells.py for fish), so that
    `echo "$(echo {x})"` with x = `a; touch PWN` prints it and runs nothing; NotACommandLine
    where a value cannot stand where it is."""
    try:
        if shell != "default" and shells.dialect(shell_words(shell)) == "fish":
            return placement.substitute_bare_words(template, parameters, shells.fish_quoted, "fish")
        return placement.substitute(template, parameters)
    except placement.Unplaceable as error:
        raise NotACommandLine(str(error)) from None


def shell_words(shell: str) -> list[str]:
    """-S's shell as an argv: a name, a path or a whole command line ("bash --norc"); "default" is sh."""
    if shell == "default":
        return ["sh"]
    try:
        words = shlex.split(shell)
    except ValueError as error:
        raise ExecError(f"Failed to parse '--shell <command>' expression as command line: {error}") from None
    if not words or not words[0]:
        raise ExecError("An empty command has been specified for the '--shell <command>' option")
    return words


def argv_for(template: str, parameters: dict[str, str], shell: str, input_file: str | None = None) -> tuple[str, ...]:
    """How one command line is run. In shell mode every value is shell-quoted where it is
    substituted, so no value a user passes runs as shell syntax; -N splits the template into
    words first and substitutes inside each, so a value is always one argument. --input FILE is
    the shell's own redirection before the command (the launcher gives every run /dev/null)."""
    if shell == "none":
        if input_file:
            raise ExecError("--input FILE needs a shell here (parbench's launcher gives every run /dev/null): "
                            "drop -N, or run it as -N with a command that reads FILE itself")
        try:
            argv = tuple(substitute(word, parameters) for word in shlex.split(template))
        except ValueError as error:
            raise ExecError(f"Failed to parse command '{template}': {error}") from None
        if not argv:
            raise ExecError("Can not execute empty command")
        return argv
    redirect = f"exec <{shlex.quote(input_file)}\n" if input_file else ""
    return (*shell_words(shell), "-c", redirect + shell_command(template, parameters, shell))


def _refuse_nul(options: ExecOptions) -> None:
    """No argv can hold a NUL byte (the kernel ends a string there): one line instead of Python's
    ValueError from deep in the scheduler."""
    texts = [*options.commands, *options.names, *options.prepare, *options.conclude, options.setup,
             options.cleanup, options.prepare_once, options.check, options.expect_file, options.shell,
             options.reference, options.reference_name,
             *(name for name, _ in options.parameter_lists), *(v for _, values in options.parameter_lists for v in values),
             *(options.parameter_scan or ())]
    if any("\x00" in text for text in texts if text):
        raise NotACommandLine("a command, a name or a value holds a NUL byte, which no command line can carry")


def _names(options: ExecOptions, count: int) -> list[str | None]:
    """A name per benchmark as hyperfine pairs them: without parameters, the first names go to
    the first commands and the rest are named by their command; with parameters, one name for
    all or exactly one per benchmark."""
    names = options.names
    if not (options.parameter_scan or options.parameter_lists):
        if len(names) > len(options.commands):
            raise ExecError(f"Too many --command-name options: Expected {len(options.commands)} at most")
        return [*names, *[None] * (len(options.commands) - len(names))]
    if len(names) > 1 and len(names) != count:
        raise ExecError(f"'--command-name' has been specified {len(names)} times. It has to appear exactly "
                        f"once, or exactly {count} times (number of benchmarks)")
    return [names[i] if len(names) > 1 else (names[0] if names else None) for i in range(count)]


def _command(name: str | None, template: str, parameters: tuple[tuple[str, str], ...], options: ExecOptions,
             number: int, index: int = -1) -> Command:
    values = dict(parameters)
    try:
        words = None if options.shell == "none" else shell_words(options.shell)
        shells.check(template, values, options.shell, words, options.evaluated_values)
    except shells.Refused as error:
        raise NotACommandLine(str(error)) from None
    display = substitute(template, values)
    unused = [f"{k} = {v}" for k, v in parameters if f"{{{k}}}" not in template]
    named = substitute(name, values) if name is not None else display
    return Command(named, display + (f" ({', '.join(unused)})" if unused else ""),
                   argv_for(template, values, options.shell, options.input if options.input != "null" else None),
                   parameters, number, index)


def commands_for(options: ExecOptions) -> list[Command]:
    """The benchmarks in hyperfine's order: --reference first (unsubstituted, as hyperfine runs
    it), then each parameter combination with every command inside it."""
    _refuse_nul(options)
    pairs = [(template, parameters) for parameters in parameter_sets(options) for template in options.commands]
    indexes = [index for _ in parameter_sets(options) for index in range(len(options.commands))]
    names = _names(options, len(pairs))
    first = 1 if options.reference is not None else 0
    _check_per_command(options, len(pairs) + first)
    out = [_command(options.reference_name, options.reference, (), options, 0)] if first else []
    out += [_command(name, template, parameters, options, first + i, index)
            for i, (name, (template, parameters), index) in enumerate(zip(names, pairs, indexes))]
    for command in out:
        _check_helpers(options, command)
    return out


def _check_helpers(options: ExecOptions, command: Command) -> None:
    """--setup, --prepare, --conclude and --cleanup take the benchmark's values too: a value that
    cannot stand where a helper puts it is refused now, before anything runs."""
    helpers = (options.setup, options.cleanup, per_command(options.prepare, command.number),
               per_command(options.conclude, command.number))
    for template in helpers:
        if template:
            argv_for(template, dict(command.parameters), options.shell)
    for template in (options.prepare_once, options.check):
        if template:
            argv_for(template, dict(command.parameters), own_shell(options.shell))


def own_shell(shell: str) -> str:
    """The shell of parbench's own untimed helpers (--prepare-once, --check): -N's "none" times the
    commands without a shell, but a helper that makes inputs is written as a shell line
    (`head -c {size} big > in.{size}`), and nothing of its start-up is in any timing; its values
    are quoted as every shell command's are."""
    return "sh" if shell == "none" else shell


def _check_per_command(options: ExecOptions, count: int) -> None:
    """--prepare, --conclude and --output: once for all, or once per benchmark (the reference included)."""
    for flag, given in (("prepare", options.prepare), ("conclude", options.conclude), ("output", options.output)):
        if len(given) > 1 and len(given) != count:
            raise ExecError(f"The '--{flag}' option has to be provided just once or N times, where N={count} is "
                            "the number of benchmark commands (including a potential reference).")
    for where in options.output:
        if where not in ("null", "pipe", "inherit") and _path_components(where) <= 1:
            raise ExecError(f"Unknown output policy '{where}'. Use './{where}' to output to a file named '{where}'.")
    if options.input not in (None, "null") and not Path(options.input).exists():
        raise ExecError(f"The file '{options.input}' specified as '--input' does not exist")


def _path_components(path: str) -> int:
    """How many components Rust's Path::components() sees: a leading `.` counts (`./out` is two,
    where pathlib would say one), a root counts, empty and inner `.` parts do not."""
    parts = path.split("/")
    return path.startswith("/") + sum(1 for i, part in enumerate(parts) if part and (part != "." or i == 0))


def ignored_codes(mode: str | None) -> tuple[int, ...] | None:
    """--ignore-failure's MODE: None ignores nothing, () every non-zero exit, else those codes."""
    if mode is None:
        return None
    if mode in ("", "all-non-zero"):
        return ()
    try:
        return tuple(int(code.strip()) for code in mode.split(","))
    except ValueError as error:
        raise ExecError(f"Could not read numeric integer argument to '--ignore-failure': {error}") from None


def per_command(values: list[str], number: int) -> str | None:
    """The value of a once-or-per-benchmark option for benchmark `number`."""
    if not values:
        return None
    return values[0] if len(values) == 1 else values[number]
