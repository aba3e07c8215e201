// Preloaded with --import: writes the process's peak RSS (KiB) to $BENCH_RSS_FILE at exit.
import {readFileSync, writeFileSync} from 'node:fs';

/** The CPU time of the children it waited for (git, for a contract check), ms: /proc/self/stat's cutime and cstime. */
function childrenCpuMs() {
	const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
	return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100; // clock ticks, 100 a second on Linux
}

// With $BENCH_CPU_FILE, also the CPU time it used (user and system, ms), its children's included: on
// a shared machine under load, CPU time compares two programs far better than the wall clock does.
process.on('exit', () => {
	if (process.env.BENCH_RSS_FILE) writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS));
	if (process.env.BENCH_CPU_FILE) {
		const {user, system} = process.cpuUsage();
		writeFileSync(process.env.BENCH_CPU_FILE, String((user + system) / 1000 + childrenCpuMs()));
	}
});
