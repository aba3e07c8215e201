#!/bin/sh
# The decision queue's hooks as Claude Code runs them (docs/decisions.md, "What the hooks cost"):
# a POSIX sh path that answers, with no Node start, the calls whose answer is nothing whatever the
# ledger holds, and hands every other call to the Node hook with the same words and payload.
#
#   decision-hook.sh NODE BIN VERB [SHELL OPTIONS] -- [VERB'S OPTIONS]
#     VERB          hold-hook, permission-hook or message-hook (bin/controlroom's verbs)
#     --bash WORD   hold-hook: a word the run's hold patterns cannot match without, as it appears
#                   in the payload's JSON (src/core/decisions/required-literals.ts); repeated
#     --bash-any    hold-hook: a pattern needs no word known for certain: every Bash call to Node
#     --writes held|free  hold-hook: whether writes outside the run's folder are held
#     --mcp GLOB    hold-hook: an MCP tool the run's policy marks read-only (only plain globs)
#     --every-call  hold-hook: the policy holds what only Node reads (a contract's needs_reapproval):
#                   every headless call to Node
#
# What it answers itself, printing nothing and exiting 0 (Claude's own permissions then decide, as
# they would without controlroom):
#   hold-hook: no budget question to ask (--on-budget stop) and no answer carried; and a call the
#     interactive TUI makes, or one the run's policy cannot hold: a tool the policy does not cover,
#     a Bash command with none of the words, a write inside the run's folder (resolved through
#     links), an MCP tool marked read-only. A question can wait only for a call the policy held.
#   permission-hook: a payload that is no PermissionRequest, or no ledger to ask in.
#   message-hook: no message waits in the mailbox (the Stop of almost every turn).
# Anything it cannot read for certain (a key twice, an escape in a value it reads, a path with dots)
# goes to Node, which decides as it always did. If Node cannot be started, the hold hook denies a
# headless call with the reason and the permission hook prints nothing: never allow on a fault.
# Builtins only: no process is started on the path it answers.

node=$1
bin=$2
verb=$3
[ $# -ge 3 ] && shift 3

bash_words=
bash_any=
writes=held
mcp_globs=
every_call=
while [ $# -gt 0 ]; do
	case $1 in
	--) shift; break ;;
	--bash) bash_words="$bash_words${bash_words:+
}$2"; shift ;;
	--bash-any) bash_any=1 ;;
	--every-call) every_call=1 ;;
	--writes) writes=$2; shift ;;
	--mcp) mcp_globs="$mcp_globs${mcp_globs:+
}$2"; shift ;;
	esac
	shift
done

headless=
case $CLAUDE_CODE_ENTRYPOINT in sdk-cli) headless=1 ;; esac
case $CLAUDE_CODE_SESSION_ATTENDED in 0) headless=1 ;; esac

# The safe answer on a fault (docs/headless-holds.md): a headless call is denied with the reason.
fault() {
	if [ "$verb" = hold-hook ] && [ -n "$headless" ]; then
		printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"controlroom could not check this call against its hold policy (%s); not run"}}\n' "$1"
	fi
	exit 0
}

case $verb in hold-hook | permission-hook | message-hook) ;; *) fault 'the hook was given no verb it knows' ;; esac

# message-hook (docs/messages.md): Node only when the mailbox beside the ledger holds a hint of a
# message not known delivered; else nothing to give, and the payload is not even read.
if [ "$verb" = message-hook ]; then
	if [ -n "$CONTROLROOM_HOME" ]; then box=$CONTROLROOM_HOME/mailbox
	elif [ -n "$XDG_STATE_HOME" ]; then box=$XDG_STATE_HOME/controlroom/mailbox
	else box=$HOME/.local/state/controlroom/mailbox; fi
	hinted=
	for hint in "$box"/m-*; do
		[ -e "$hint" ] && hinted=1
		break
	done
	[ -n "$hinted" ] || exit 0
fi

# The payload, whole (Claude writes one line of JSON). `read` stops at each newline: lines joined back.
payload=
if [ ! -t 0 ]; then
	while IFS= read -r line || [ -n "$line" ]; do
		payload="$payload${payload:+
}$line"
	done
fi

here=$PWD
to_node() {
	cd -- "$here" 2>/dev/null
	case $node in /*) ;; *) fault 'no path to Node' ;; esac
	[ -x "$node" ] || fault "Node is not at $node"
	[ -r "$bin" ] || fault "controlroom is not at $bin"
	exec "$node" "$bin" "$verb" "$@" <<EOF
$payload
EOF
}

# How many times (0, 1, 2 for two or more) `$1` occurs in the payload.
count() {
	rest=${payload#*"$1"}
	[ "$rest" = "$payload" ] && { n=0; return; }
	case $rest in *"$1"*) n=2 ;; *) n=1 ;; esac
}

# The string value of the payload's one key `$1` into $value; false when the key is not there once,
# its value is no string, or it holds a backslash (an escape the shell does not unescape). A key is
# found by its quoted name: inside a JSON string every quote is escaped, so only keys (and strings
# equal to the name, which make it count twice) match.
field() {
	count "\"$1\""
	[ "$n" = 1 ] || return 1
	rest=${payload#*"\"$1\""}
	case $rest in :\"*) ;; *) return 1 ;; esac
	rest=${rest#:\"}
	value=${rest%%\"*}
	case $value in *\\*) return 1 ;; esac
	return 0
}

# Whether `$1` (absolute, or under the run's folder `$2`) is the folder `$2` or below it, both resolved
# through links as the Node hook resolves them (src/gates/hold-quick.ts); false when not sure.
inside() {
	path=$1
	case $path in /*) ;; *) path=$2/$path ;; esac
	case $path in */./* | */../* | */. | */.. | ./* | ../* | *//* | */) return 1 ;; esac
	head=$path
	rest=
	while [ ! -e "$head" ]; do
		rest=/${head##*/}$rest
		head=${head%/*}
		[ -n "$head" ] || head=/
		[ "$head" = / ] && break
	done
	if [ -d "$head" ]; then
		dir=$head
	else
		# An existing file that is a link is followed by Node, not here.
		[ -h "$head" ] && return 1
		dir=${head%/*}
		[ -n "$dir" ] || dir=/
		rest=/${head##*/}$rest
	fi
	cd -P -- "$dir" 2>/dev/null || return 1
	real=$PWD$rest
	case $real in //*) real=${real#/} ;; esac
	cd -P -- "$2" 2>/dev/null || return 1
	folder=$PWD
	[ "$folder" = / ] && return 0
	case $real in "$folder" | "$folder"/*) return 0 ;; esac
	return 1
}

# A payload that is not one JSON object is Node's to refuse (a fault: denied headless).
case $payload in '{'*'}') ;; *) to_node "$@" ;; esac

[ "$verb" = message-hook ] && to_node "$@"

if [ "$verb" = permission-hook ]; then
	field hook_event_name || to_node "$@"
	[ "$value" = PermissionRequest ] || exit 0
	ledger=
	for arg do
		case $arg in --ledger=*) ledger=${arg#*=} ;; esac
	done
	[ -n "$ledger" ] || {
		# The same place controlroom looks (src/ledger/paths.ts)
		if [ -n "$CONTROLROOM_HOME" ]; then ledger=$CONTROLROOM_HOME/ledger.db
		elif [ -n "$XDG_STATE_HOME" ]; then ledger=$XDG_STATE_HOME/controlroom/ledger.db
		else ledger=$HOME/.local/state/controlroom/ledger.db; fi
	}
	case " $* " in *' --ledger '*) to_node "$@" ;; esac
	case $ledger in /*) ;; *) to_node "$@" ;; esac
	# No ledger: no one to ask, and Claude's own dialog answers.
	[ -e "$ledger" ] || exit 0
	to_node "$@"
fi

# hold-hook
cwd=
want=
budget=stop
for arg do
	if [ -n "$want" ]; then
		eval "$want=\$arg"
		want=
		continue
	fi
	case $arg in
	--cwd) want=cwd ;;
	--cwd=*) cwd=${arg#*=} ;;
	--on-budget) want=budget ;;
	--on-budget=*) budget=${arg#*=} ;;
	esac
done
[ "$budget" = stop ] || to_node "$@"
[ -z "$CONTROLROOM_CARRIED_ANSWER" ] || to_node "$@"
case $CONTROLROOM_TASK_ID in '' | *[!\ ]*) ;; *) CONTROLROOM_TASK_ID= ;; esac
[ -n "$CONTROLROOM_TASK_ID" ] || exit 0
field hook_event_name || to_node "$@"
[ "$value" = PreToolUse ] || exit 0
# In the TUI a held call is the dialog's (defer is not honoured there): nothing to answer here.
[ -n "$headless" ] || exit 0
[ -z "$every_call" ] || to_node "$@"
field tool_name || to_node "$@"
tool=$value
case $tool in
Bash)
	[ -z "$bash_any" ] || to_node "$@"
	count '"tool_input"'
	[ "$n" = 1 ] || to_node "$@"
	input=${payload#*\"tool_input\"}
	# Only the plain and the short escapes: a \u or \/ could write a word otherwise than as looked for.
	case $input in *'\u'* | *'\/'*) to_node "$@" ;; esac
	while IFS= read -r word; do
		[ -n "$word" ] || continue
		case $input in *"$word"*) to_node "$@" ;; esac
	done <<EOF
$bash_words
EOF
	exit 0
	;;
Write | Edit | MultiEdit | NotebookEdit)
	[ "$writes" = held ] || exit 0
	[ "$tool" = NotebookEdit ] && key=notebook_path || key=file_path
	field "$key" || to_node "$@"
	[ -n "$value" ] && [ -n "$cwd" ] || to_node "$@"
	inside "$value" "$cwd" && exit 0
	to_node "$@"
	;;
mcp__*)
	while IFS= read -r glob; do
		[ -n "$glob" ] || continue
		# shellcheck disable=SC2254 # the glob is the policy's pattern: only letters, digits, _ . - and *
		case $tool in $glob) exit 0 ;; esac
	done <<EOF
$mcp_globs
EOF
	to_node "$@"
	;;
esac
exit 0
