// Preloaded (`node --import`) into a process whose CPU time a test measures: at exit it writes the
// process's own user + system CPU time, in ms, to descriptor 3 (a pipe the test opened), and
// nothing to stdout or stderr. CPU time, unlike wall time, does not grow when other processes
// share the cores.
import {writeSync} from 'node:fs';

process.on('exit', () => {
	const {user, system} = process.cpuUsage();
	try {
		writeSync(3, `${(user + system) / 1000}\n`);
	} catch {
		// No descriptor 3: started without the test's pipe; report nothing.
	}
});
