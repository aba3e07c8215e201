import {fstatSync, readSync} from 'node:fs';

// How every hook of controlroom reads its payload from stdin: the record hook (hook-main.ts) and
// the decision queue's hold and permission hooks. Its own file, so a hook that needs no ledger
// for its answer loads nothing of it (docs/decisions.md, "What the hooks cost").

/** How long a non-blocking stdin is waited for. */
const STDIN_WAIT_MS = 60;

/** A terminal (or /dev/null) on stdin gives no payload: checked without loading node:tty, which pulls in net. */
function isTerminal(): boolean {
	try {
		return fstatSync(0).isCharacterDevice();
	} catch {
		return true;
	}
}

async function readStdinStream(limit: number, waitMs: number): Promise<Buffer> {
	const chunks: Buffer[] = [];
	let size = 0;
	await new Promise<void>(resolve => {
		const timer = setTimeout(done, waitMs);
		function done(): void {
			clearTimeout(timer);
			process.stdin.pause();
			process.stdin.removeAllListeners('data');
			process.stdin.unref?.();
			resolve();
		}
		process.stdin.on('data', (chunk: Buffer) => {
			chunks.push(chunk);
			size += chunk.length;
			if (size > limit) done();
		});
		process.stdin.once('end', done);
		process.stdin.once('error', done);
	});
	return Buffer.concat(chunks);
}

/**
 * Reads stdin to its end, at most `limit` + 1 bytes. A blocking read is used because agents
 * write the payload and close the pipe, and it is about 3 ms cheaper than a stream; a terminal
 * gives nothing, and a non-blocking descriptor falls back to a stream read with a short wait.
 */
export async function readHookStdin(limit: number): Promise<Buffer> {
	if (isTerminal()) return Buffer.alloc(0);
	const chunks: Buffer[] = [];
	const buffer = Buffer.allocUnsafe(256 * 1024);
	let size = 0;
	try {
		for (;;) {
			const read = readSync(0, buffer, 0, buffer.length, null);
			if (read === 0) break;
			chunks.push(Buffer.from(buffer.subarray(0, read)));
			size += read;
			if (size > limit) break;
		}
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === 'EAGAIN') chunks.push(await readStdinStream(limit - size, STDIN_WAIT_MS));
		// EOF (a closed descriptor) and other read errors mean: no more input.
	}
	return Buffer.concat(chunks);
}
