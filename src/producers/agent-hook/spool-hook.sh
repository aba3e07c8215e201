#!/bin/sh
# controlroom's spool hook: what `controlroom hooks install` puts in Claude Code's and Codex's
# hook settings. The agent waits for every hook call, so this costs a shell start, not a Node
# start: it writes one spool file (a one-line JSON header, then the payload exactly as received)
# under a temporary name, renames it into $CONTROLROOM_HOME/spool/, prints nothing and exits 0
# whatever happens; when it cannot write the file, it leaves a drop marker so the loss is counted.
# The fold (board, reconciler, and every reading command before it reads) records it through the
# same mapping as `controlroom hook`. Format: docs/hooks.md.
#
# Usage: spool-hook.sh [--agent claude|codex] [--ledger PATH] [--notify [JSON]]
# The common path runs builtins only, plus `cat` for the payload and `mv` for the rename.

exec >/dev/null 2>&1
umask 077

agent=claude
ledger=
origin=stdin
notify=
while [ $# -gt 0 ]; do
	case $1 in
	--agent) [ $# -gt 1 ] && { agent=$2; shift; } ;;
	--agent=*) agent=${1#*=} ;;
	--ledger) [ $# -gt 1 ] && { ledger=$2; shift; } ;;
	--ledger=*) ledger=${1#*=} ;;
	--notify=*)
		origin=notify
		notify=${1#*=}
		break
		;;
	--notify)
		# Codex appends its JSON as the very last argument.
		origin=notify
		[ $# -gt 1 ] && eval "notify=\${$#}"
		break
		;;
	esac
	shift
done
case $agent in claude | codex) ;; *) agent=claude ;; esac

# The same place `controlroom` looks: spool/ beside the ledger.
if [ -n "$ledger" ]; then
	case $ledger in */*) dir=${ledger%/*}/spool ;; *) dir=spool ;; esac
elif [ -n "$CONTROLROOM_HOME" ]; then
	dir=$CONTROLROOM_HOME/spool
elif [ -n "$XDG_STATE_HOME" ]; then
	dir=$XDG_STATE_HOME/controlroom/spool
else
	dir=$HOME/.local/state/controlroom/spool
fi
[ -d "$dir" ] || mkdir -p "$dir" || exit 0

# JSON string body of $1 into $out: quotes and backslashes escaped, control bytes replaced.
json_text() {
	case $1 in
	*[\"\\]* | *[[:cntrl:]]*) ;;
	*)
		out=$1
		return
		;;
	esac
	out=
	rest=$1
	while [ -n "$rest" ]; do
		tail=${rest#?}
		c=${rest%"$tail"}
		rest=$tail
		case $c in
		\" | \\) out="$out\\$c" ;;
		[[:cntrl:]]) out="$out\\ufffd" ;;
		*) out="$out$c" ;;
		esac
	done
}

header="{\"v\":1,\"source\":\"$agent\",\"origin\":\"$origin\""
case $CLAUDE_PID in '' | 0 | *[!0-9]*) ;; *) header="$header,\"pid\":$CLAUDE_PID" ;; esac
if [ -n "$CONTROLROOM_TASK_ID" ]; then
	json_text "$CONTROLROOM_TASK_ID"
	header="$header,\"wrapperTaskId\":\"$out\""
fi
# Claude's config folder, which its transcripts must be under for the fold to read them.
if [ -n "$CLAUDE_CONFIG_DIR" ]; then
	json_text "$CLAUDE_CONFIG_DIR"
	header="$header,\"configDir\":\"$out\""
fi

# Where the agent runs in tmux (docs/tmux.md): the two variables as they are, read by the fold.
if [ -n "$TMUX" ] && [ -n "$TMUX_PANE" ]; then
	json_text "$TMUX"
	header="$header,\"tmux\":\"$out\""
	json_text "$TMUX_PANE"
	header="$header,\"tmuxPane\":\"$out\""
fi

# The parent chain, nearest first, up to 4 levels: PID, start time (field 22 of stat) and comm,
# read with the `read` builtin. The walk stops at the process the fold looks for (CLAUDE_PID, or
# else the first one named like the agent), so a hook under Claude or Codex reads one or two
# levels. A comm without blanks (almost every one) lets one `read` take the stat fields straight
# into variables: splitting the line again with `set --` cost a third of a millisecond a level.
# A comm with blanks shifts those fields, so then the line is split after its last ') '.
set -f
ancestors=
pid=$PPID
level=0
while [ "$level" -lt 4 ]; do
	case $pid in '' | 0 | *[!0-9]*) break ;; esac
	name=
	read -r name <"/proc/$pid/comm" || break
	case $name in
	*[[:space:]]*)
		line=
		read -r line <"/proc/$pid/stat" || break
		# shellcheck disable=SC2086 # splitting the numeric fields is the point
		set -- ${line##*) }
		[ $# -ge 20 ] || break
		ppid=$2
		start=${20}
		;;
	*)
		# shellcheck disable=SC2034 # the fields between are read only to be skipped
		read -r _ _ _ ppid f5 f6 f7 f8 f9 f10 f11 f12 f13 f14 f15 f16 f17 f18 f19 f20 f21 start _ <"/proc/$pid/stat" || break
		;;
	esac
	case $ppid$start in '' | *[!0-9]*) break ;; esac
	json_text "$name"
	ancestors="$ancestors${ancestors:+,}{\"pid\":$pid,\"startTime\":$start,\"name\":\"$out\"}"
	[ "$pid" = "$CLAUDE_PID" ] && break
	case $name in "$agent" | "$agent".* | "$agent"-*) [ -z "$CLAUDE_PID" ] && break ;; esac
	pid=$ppid
	level=$((level + 1))
done
[ -n "$ancestors" ] && header="$header,\"ancestors\":[$ancestors]"
header="$header}"

# A fresh random name for each call (the kernel's uuid: a read, no process); the time is the
# file's modification time, which the kernel sets as the payload is written.
id=
read -r id </proc/sys/kernel/random/uuid
[ -n "$id" ] || id=$$-$(date +%s)-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
tmp=$dir/.$id.tmp
trap 'rm -f "$tmp"; exit 0' HUP INT TERM PIPE

# A write or rename that fails (a full disk) leaves a drop marker instead: an empty file, since a
# new name in an existing folder needs no data block where the payload would. The fold counts the
# markers into the ledger's hook.dropped counter, which doctor, hooks status and the board show.
if [ "$origin" = notify ]; then
	printf '%s\n%s' "$header" "$notify" >"$tmp"
elif [ -t 0 ]; then
	printf '%s\n' "$header" >"$tmp"
else
	{
		printf '%s\n' "$header" && cat
	} >"$tmp"
fi && mv -f "$tmp" "$dir/$id.spool" || {
	rm -f "$tmp"
	: >"$dir/$id.dropped"
}
exit 0
