import {closeSync} from 'node:fs';
import {openAgentFileUnder, readAt} from '../ledger/agent-files.ts';
import {MAX_TRANSCRIPT_BYTES, transcriptRoots} from '../ledger/transcript-tokens.ts';

/** The most read from a transcript in one go: a turn's worth; the rest waits for the next read. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * Follows a Claude transcript (a file the agent writes, its path from the hook payload): each
 * `next()` returns the whole JSON lines added since the last one, parsed; a line that does not
 * parse is skipped. The file is opened as any agent file is (docs/security.md: no link followed,
 * regular files only, under the config folder's `projects/`); a file that cannot be read gives no
 * lines, never an error, so a hook can go on without it.
 */
export function followTranscript(path: string | null, configDir: string | null): {next(): unknown[]} {
	let offset = 0;
	// Bytes after the last line break: a line still being written, or a character cut in two.
	let partial: Buffer = Buffer.alloc(0);
	return {
		next() {
			if (path === null) return [];
			let fd: number | null = null;
			try {
				const file = openAgentFileUnder(path, transcriptRoots(configDir), MAX_TRANSCRIPT_BYTES);
				fd = file.fd;
				if (file.size < offset) {
					offset = 0; // replaced or cut: read it again from the start
					partial = Buffer.alloc(0);
				}
				const bytes = readAt(fd, offset, Math.min(CHUNK_BYTES, file.size - offset));
				offset += bytes.length;
				const joined = Buffer.concat([partial, bytes]);
				const end = joined.lastIndexOf(0x0a);
				partial = end < 0 ? joined : joined.subarray(end + 1);
				if (partial.length > CHUNK_BYTES) partial = Buffer.alloc(0); // one huge line: not a tool call we look for
				const lines: unknown[] = [];
				for (const line of end < 0 ? [] : joined.subarray(0, end).toString('utf8').split('\n')) {
					if (line.trim() === '') continue;
					try {
						lines.push(JSON.parse(line));
					} catch {
						// a line that is not JSON says nothing about the call
					}
				}
				return lines;
			} catch {
				return [];
			} finally {
				if (fd !== null) closeSync(fd);
			}
		},
	};
}
