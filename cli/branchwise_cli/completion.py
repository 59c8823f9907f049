"""Shell completion scripts for bash, zsh and fish, generated from the command-line parser.

The parser is the one source of truth: every command, option and fixed vocabulary (`--language`,
`--symbol-type`, `--mode`, a command's action) comes from it, so a new option completes without
touching this module. Branch names complete from the repository named by `--repo` on the same
line (else the current directory) through `git for-each-ref`, at completion time; paths through
the shell's own file completion.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

SHELLS = ("bash", "zsh", "fish")

#: options whose value is a directory or a file
_DIRECTORY_METAVARS = ("REPO", "DIR")
_FILE_METAVARS = ("FILE", "FILE|SYMBOL", "TOUR", "SNIPPETS")
#: what names a branch or another revision (completed with the repository's branches)
_BRANCH_DESTS = ("branch", "base", "against", "diff_branch", "diff")


@dataclass
class Option:
    names: list[str]
    #: "flag" (no value), "branch", "dir", "file", "choice" or "value"
    kind: str
    choices: list[str] = field(default_factory=list)


@dataclass
class Command:
    name: str
    help: str
    options: list[Option]
    #: the choices of the first positional argument (an action such as `tour check`), if any
    actions: list[str]
    #: whether a positional argument names a branch (`diff BRANCH`)
    branch_argument: bool = False


def describe(parser: argparse.ArgumentParser) -> list[Command]:
    """Each subcommand of `parser`, with its options and their kinds."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {choice.dest: choice.help or "" for choice in sub._choices_actions}
    commands = []
    for name, command_parser in sub.choices.items():
        options: list[Option] = []
        actions: list[str] = []
        branch_argument = False
        for action in command_parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            if not action.option_strings:
                if not actions and action.choices:
                    actions = [str(c) for c in action.choices]
                branch_argument = branch_argument or action.dest in _BRANCH_DESTS
                continue
            options.append(Option(list(action.option_strings), *_kind(action)))
        commands.append(Command(name, helps.get(name, ""), options, actions, branch_argument))
    return commands


def _kind(action: argparse.Action) -> tuple[str, list[str]]:
    if action.nargs == 0:
        return "flag", []
    choices = action.choices or getattr(action.type, "choices", None)
    if choices:
        return "choice", [str(c) for c in choices]
    if action.dest in _BRANCH_DESTS:
        return "branch", []
    if action.metavar in _DIRECTORY_METAVARS:
        return "dir", []
    if action.metavar in _FILE_METAVARS or action.dest in ("out", "queries", "labels"):
        return "file", []
    return "value", []


def script(shell: str, parser: argparse.ArgumentParser) -> str:
    commands = describe(parser)
    return {"bash": _bash, "zsh": _zsh, "fish": _fish}[shell](commands)


def _words(values) -> str:
    return " ".join(shlex.quote(v) for v in values)


# bash -----------------------------------------------------------------------------------------

_BASH_HEAD = r'''# bash completion for branchwise: eval "$(branchwise completion bash)" in ~/.bashrc
_branchwise_branches() {
    local repo=. i
    for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
        [[ ${COMP_WORDS[i]} == --repo ]] && repo=${COMP_WORDS[i+1]}
    done
    git -C "$repo" for-each-ref --format='%(refname:short)' refs/heads 2>/dev/null
}
# Branch names are data: compared as strings, never handed to `compgen -W`, which would expand
# `$(...)` and backticks inside a name.
_branchwise_complete_branches() {
    local branch
    COMPREPLY=()
    while IFS= read -r branch; do
        [[ $branch == "$cur"* ]] && COMPREPLY+=("$branch")
    done < <(_branchwise_branches)
}
_branchwise() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[1]}
    if ((COMP_CWORD == 1)); then
        COMPREPLY=($(compgen -W "COMMANDS --help --version" -- "$cur")); return
    fi
    case $cmd in
'''


@dataclass(frozen=True)
class _CaseShell:
    """How bash or zsh spells the parts of the one `case` statement both scripts are made of."""
    head: str
    pattern: str  # a case arm's pattern: "{})" (bash) or "({})" (zsh), the names in the braces
    #: what completes an option's value, by the option's kind ("flag" takes none)
    value: dict[str, str]
    words: Callable[[list[str]], str]  # a list of words as the shell's completion builtin takes it
    actions: str  # the first positional argument's choices ({words})
    rest: str  # anything else: a flag ({flags}) or the positional arguments
    branches_rest: str
    tail: str


def _case_script(shell: _CaseShell, commands: list[Command]) -> str:
    out = [shell.head.replace("COMMANDS", " ".join(c.name for c in commands))]
    for command in commands:
        out.append(f"    {shell.pattern.replace('{}', command.name)}\n        case $prev in\n")
        for option in command.options:
            if option.kind in shell.value:
                action = shell.value[option.kind].replace("{words}", shell.words(option.choices))
                out.append(f"            {shell.pattern.replace('{}', '|'.join(option.names))} {action}; return;;\n")
        out.append("        esac\n")
        if command.actions:
            out.append(shell.actions.replace("{words}", shell.words(command.actions)))
        flags = shell.words([n for o in command.options for n in o.names] + ["--help"])
        rest = shell.branches_rest if command.branch_argument else shell.rest
        out.append(rest.replace("{flags}", flags))
    out.append(shell.tail)
    return "".join(out)


_BASH = _CaseShell(
    head=_BASH_HEAD,
    pattern="{})",
    value={"branch": "_branchwise_complete_branches",
           "choice": "COMPREPLY=($(compgen -W {words} -- \"$cur\"))",
           "dir": 'COMPREPLY=($(compgen -d -- "$cur"))',
           "file": 'COMPREPLY=($(compgen -f -- "$cur"))',
           "value": "COMPREPLY=()"},
    words=lambda values: shlex.quote(" ".join(values)),
    actions="        if ((COMP_CWORD == 2)); then COMPREPLY=($(compgen -W {words} -- \"$cur\")); return; fi\n",
    rest="        if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W {flags} -- \"$cur\"));\n"
         "        else COMPREPLY=($(compgen -f -- \"$cur\")); fi;;\n",
    branches_rest="        if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W {flags} -- \"$cur\"));\n"
                  "        else _branchwise_complete_branches; fi;;\n",
    tail="    esac\n}\ncomplete -o filenames -F _branchwise branchwise\n",
)


def _bash(commands: list[Command]) -> str:
    return _case_script(_BASH, commands)


# zsh ------------------------------------------------------------------------------------------

_ZSH_HEAD = r'''#compdef branchwise
# zsh completion for branchwise: put this file as _branchwise in your $fpath, or
# eval "$(branchwise completion zsh)" after compinit in ~/.zshrc
_branchwise_branches() {
    local repo=. i
    for ((i = 2; i < CURRENT; i++)); do
        [[ ${words[i]} == --repo ]] && repo=${words[i+1]}
    done
    git -C "$repo" for-each-ref --format='%(refname:short)' refs/heads 2>/dev/null
}
_branchwise() {
    local cur=${words[CURRENT]} prev=${words[CURRENT-1]} cmd=${words[2]}
    if ((CURRENT == 2)); then
        compadd -- COMMANDS --help --version; return
    fi
    case $cmd in
'''


_ZSH = _CaseShell(
    head=_ZSH_HEAD,
    pattern="({})",
    value={"branch": 'compadd -- ${(f)"$(_branchwise_branches)"}',
           "choice": "compadd -- {words}",
           "dir": "_files -/",
           "file": "_files",
           "value": ":"},
    words=_words,
    actions="        if ((CURRENT == 3)); then compadd -- {words}; return; fi\n",
    rest="        if [[ $cur == -* ]]; then compadd -- {flags}; else _files; fi;;\n",
    branches_rest='        if [[ $cur == -* ]]; then compadd -- {flags}; else compadd -- ${(f)"$(_branchwise_branches)"}; fi;;\n',
    tail="    esac\n}\n"
         'if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _branchwise "$@"; '
         "else compdef _branchwise branchwise; fi\n",
)


def _zsh(commands: list[Command]) -> str:
    return _case_script(_ZSH, commands)


# fish -----------------------------------------------------------------------------------------

_FISH_HEAD = r'''# fish completion for branchwise: branchwise completion fish > ~/.config/fish/completions/branchwise.fish
function __branchwise_branches
    set -l tokens (commandline -opc)
    set -l repo .
    for i in (seq (count $tokens))
        if test "$tokens[$i]" = --repo; and test $i -lt (count $tokens)
            set repo $tokens[(math $i + 1)]
        end
    end
    git -C $repo for-each-ref --format='%(refname:short)' refs/heads 2>/dev/null
end
complete -c branchwise -f
complete -c branchwise -n __fish_use_subcommand -l version -d 'print the version'
'''


def _fish(commands: list[Command]) -> str:
    out = [_FISH_HEAD]
    for command in commands:
        out.append(f"complete -c branchwise -n __fish_use_subcommand -a {command.name} -d {shlex.quote(command.help[:60])}\n")
        seen = f"__fish_seen_subcommand_from {command.name}"
        if command.branch_argument:
            out.append(f"complete -c branchwise -n {shlex.quote(seen)} -a '(__branchwise_branches)'\n")
        if command.actions:
            actions = " ".join(command.actions)
            out.append(f"complete -c branchwise -n {shlex.quote(f'{seen}; and not __fish_seen_subcommand_from {actions}')} "
                       f"-a {shlex.quote(actions)}\n")
        for option in command.options:
            longs = " ".join(f"-l {n[2:]}" for n in option.names if n.startswith("--"))
            shorts = " ".join(f"-s {n[1:]}" for n in option.names if not n.startswith("--"))
            flags = " ".join(part for part in (longs, shorts) if part)
            line = f"complete -c branchwise -n {shlex.quote(seen)} {flags}"
            if option.kind == "branch":
                line += " -x -a '(__branchwise_branches)'"
            elif option.kind == "choice":
                line += f" -x -a {shlex.quote(' '.join(option.choices))}"
            elif option.kind == "dir":
                line += " -x -a '(__fish_complete_directories)'"
            elif option.kind == "file":
                line += " -r -F"
            else:
                line += " -x"
            out.append(line + "\n")
    return "".join(out)
