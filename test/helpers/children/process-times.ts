// Preloaded (`node --import`) into a process whose cost a test measures. At exit it writes to
// descriptor 3 (a pipe the test opened; nothing goes to stdout or stderr) two times in ms, as JSON:
// - cpuMs: its CPU time, user + system, every thread: the work it did;
// - waitedMs: how long its main thread lived neither on a core nor queued for one
//   (/proc/self/schedstat: ns on a core, ns runnable but waiting): its own waits, for a lock,
//   a file, a pipe.
// Neither counts the time it queued behind other processes, which on a loaded 2-core machine is
// most of its wall time.
// - maxRssKiB: its peak resident memory.
import {readFileSync, writeSync} from 'node:fs';

process.on('exit', () => {
	const {user, system} = process.cpuUsage();
	const [onCoreNs = 0, queuedNs = 0] = readFileSync('/proc/self/schedstat', 'utf8').split(' ').map(Number);
	const times = {
		cpuMs: (user + system) / 1000,
		waitedMs: performance.now() - (onCoreNs + queuedNs) / 1e6,
		maxRssKiB: process.resourceUsage().maxRSS,
	};
	try {
		writeSync(3, `${JSON.stringify(times)}\n`);
	} catch {
		// No descriptor 3: started without the test's pipe; report nothing.
	}
});
