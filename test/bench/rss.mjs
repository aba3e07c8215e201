// Preloaded with --import: writes the process's peak RSS (KiB) to $BENCH_RSS_FILE at exit.
import {writeFileSync} from 'node:fs';

// With $BENCH_CPU_FILE, also the CPU time it used (user and system, ms): on a shared machine under
// load, CPU time compares two programs far better than the wall clock does.
process.on('exit', () => {
	if (process.env.BENCH_RSS_FILE) writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS));
	if (process.env.BENCH_CPU_FILE) {
		const {user, system} = process.cpuUsage();
		writeFileSync(process.env.BENCH_CPU_FILE, String((user + system) / 1000));
	}
});
