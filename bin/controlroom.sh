#!/bin/sh
# The installed `controlroom` (package.json's bin): a POSIX sh entry, so that `controlroom status`,
# which tmux runs every couple of seconds, starts no Node: it answers from the summary file the
# board and the reconciler keep beside the ledger (docs/tmux.md, "Status line"). Every other
# command, and a status it cannot answer (no summary yet, an option it does not know), goes to the
# Node entry beside this file (bin/controlroom) with exec, so its arguments and exit code are
# Node's own. Builtins only on the status path, plus one `date +%s` for the summary's age.

node_entry() {
	self=$0
	if [ -h "$self" ]; then
		# npm puts a symlink to this file on PATH. Where it is one of npm's own links (a local
		# install's node_modules/.bin, a global install's <prefix>/bin), the package is found with
		# builtins: `readlink` is a process of its own, which at every call of every command costs
		# as much as the shell's start. `-ef` (same file) proves the guess; a shell without it, or
		# any other link, follows the links one by one.
		dir=${self%/*}
		for package in "$dir/../controlroom" "$dir/../lib/node_modules/controlroom"; do
			if [ "$package/bin/controlroom.sh" -ef "$self" ] 2>/dev/null; then exec node "$package/bin/controlroom" "$@"; fi
		done
	fi
	while [ -h "$self" ]; do
		link=$(readlink "$self")
		case $link in /*) self=$link ;; *) self=${self%/*}/$link ;; esac
	done
	case $self in */*) ;; *) self=./$self ;; esac
	exec node "${self%/*}/controlroom" "$@"
}

[ "$1" = status ] || node_entry "$@"
# A terminal that cannot draw the format's symbols (TERM=dumb; a locale, the first of LC_ALL,
# LC_CTYPE, LANG set, that is not UTF-8) gets Node's line, in ASCII (src/core/symbols.ts).
[ "$TERM" != dumb ] || node_entry "$@"
locale=${LC_ALL:-${LC_CTYPE:-$LANG}}
case $locale in '' | *[Uu][Tt][Ff]-8* | *[Uu][Tt][Ff]8*) ;; *) node_entry "$@" ;; esac

want=
json=
format=
has_format=
ledger=
shift
for arg do
	if [ -n "$want" ]; then
		eval "$want=\$arg"
		want=
		continue
	fi
	case $arg in
	--json) json=1 ;;
	--format) want=format has_format=1 ;;
	--format=*) format=${arg#*=} has_format=1 ;;
	--ledger) want=ledger ;;
	--ledger=*) ledger=${arg#*=} ;;
	*) node_entry status "$@" ;;
	esac
done
[ -z "$want" ] || node_entry status "$@"

# The same folder `controlroom` keeps its ledger in (src/ledger/paths.ts).
if [ -n "$ledger" ]; then
	case $ledger in */*) dir=${ledger%/*} ;; *) dir=. ;; esac
	case $ledger in postgres://* | postgresql://*) node_entry status "$@" ;; esac
elif [ -n "$CONTROLROOM_HOME" ]; then
	dir=$CONTROLROOM_HOME
elif [ -n "$XDG_STATE_HOME" ]; then
	dir=$XDG_STATE_HOME/controlroom
else
	dir=$HOME/.local/state/controlroom
fi
file=$dir/status
[ -r "$file" ] || node_entry status "$@"

v= at= iso= needs= decisions= running= stalled= lost= cost= costtext= estimated= partial= until=
while IFS='=' read -r key value; do
	case $key in
	v) v=$value ;;
	at) at=$value ;;
	iso) iso=$value ;;
	needs) needs=$value ;;
	decisions) decisions=$value ;;
	running) running=$value ;;
	stalled) stalled=$value ;;
	lost) lost=$value ;;
	cost) cost=$value ;;
	costtext) costtext=$value ;;
	estimated) estimated=$value ;;
	partial) partial=$value ;;
	until) until=$value ;;
	esac
done <"$file"
# Only a whole file of ours is read here; anything else is Node's to answer (it writes a new one).
[ "$v" = 1 ] || node_entry status "$@"
for number in "$at" "$needs" "$decisions" "$running" "$stalled" "$lost" "$until"; do
	case $number in '' | *[!0-9]*) node_entry status "$@" ;; esac
done
case $cost in *[!0-9.]*) node_entry status "$@" ;; esac
case $costtext in *[!0-9.~\$\<+]*) node_entry status "$@" ;; esac
case $estimated$partial in [01][01]) ;; *) node_entry status "$@" ;; esac
case $iso in *[!0-9T:.Z-]*) node_entry status "$@" ;; esac

now=$(date +%s)
age=$((now - at))
[ "$age" -ge 0 ] || age=0
# The cost is the local day's that ended at `until` (src/core/day-cost.ts): after it, unknown.
if [ "$now" -ge "$until" ]; then cost= costtext= estimated=0 partial=0; fi

if [ -n "$json" ]; then
	[ "$estimated" = 1 ] && estimated=true || estimated=false
	[ "$partial" = 1 ] && partial=true || partial=false
	printf '{"v":1,"at":"%s","ageSeconds":%s,"needs":%s,"decisions":%s,"running":%s,"stalled":%s,"lost":%s,"costToday":%s,"costTodayIsEstimated":%s,"costTodayIsPartial":%s}\n' \
		"$iso" "$age" "$needs" "$decisions" "$running" "$stalled" "$lost" "${cost:-null}" "$estimated" "$partial"
	exit 0
fi

# {stale}: empty while the summary is fresh (src/core/status-summary.ts, STALE_AFTER_SECONDS).
stale=
if [ "$age" -ge 30 ]; then
	if [ "$age" -lt 120 ]; then stale=" (summary ${age}s old)"
	elif [ "$age" -lt 7200 ]; then stale=" (summary $((age / 60))m old)"
	else stale=" (summary $((age / 3600))h old)"; fi
fi
[ -n "$has_format" ] || format='needs you {needs} · decisions {decisions} · running {running} · stalled {stalled} · lost {lost} · today {cost}{stale}'

# Fills {name} as formatStatus does; an unknown name is left as written.
line=
rest=$format
while :; do
	case $rest in
	*'{'*'}'*) ;;
	*)
		line=$line$rest
		break
		;;
	esac
	line=$line${rest%%\{*}
	rest=${rest#*\{}
	name=${rest%%\}*}
	case $name in
	needs) value=$needs ;;
	decisions) value=$decisions ;;
	running) value=$running ;;
	stalled) value=$stalled ;;
	lost) value=$lost ;;
	cost) value=${costtext:-\$—} ;;
	age) value=$age ;;
	stale) value=$stale ;;
	*)
		line=$line{
		continue
		;;
	esac
	line=$line$value
	rest=${rest#*\}}
done
printf '%s\n' "$line"
