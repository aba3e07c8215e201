import {closeSync, watch, type FSWatcher} from 'node:fs';
import {basename, dirname} from 'node:path';
import {LOG_VIEW_LINES, plainLine, type LogReader, type TaskLog} from '../core/board/log-view.ts';
import {EventType} from '../core/events.ts';
import {ledgerMessages, messageLines, transcriptMessages} from '../core/transcript-messages.ts';
import {AgentFileError, openAgentFile, openAgentFileUnder, readAt, readTail as readAgentTail} from '../ledger/agent-files.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {MAX_TRANSCRIPT_BYTES, projectsRootOf} from '../ledger/transcript-tokens.ts';
import {OUTPUT_FILE_CAP_BYTES} from './wrapper/output-file.ts';

/** How much of the end of an output file is read for the view. */
const OUTPUT_TAIL_BYTES = 256 * 1024;
/** How much of the end of a transcript is read: its lines are long (whole tool results). */
const TRANSCRIPT_TAIL_BYTES = 1024 * 1024;
/** Agent events read for a session whose transcript cannot be read. */
const LEDGER_EVENTS = 400;
/** Reads are at most one a frame, however fast the file grows (the board draws at 30 fps). */
const FRAME_MS = 33;

/**
 * The end of a file: at most `bytes`, from the first whole line; empty when the file is missing,
 * or is not a regular file. The agent can write where its output and transcript are: the file is
 * opened as agent-files.ts opens such files, so a FIFO there never blocks the board, a link to a
 * device or a secret is not followed.
 */
function readTail(path: string, bytes: number): {text: string; isCut: boolean} {
	let file;
	try {
		file = openAgentFile(path, Number.POSITIVE_INFINITY);
	} catch (error) {
		if (error instanceof AgentFileError) return {text: '', isCut: false};
		throw error;
	}
	try {
		const {fd, size} = file;
		const start = Math.max(0, size - bytes);
		const text = readAt(fd, start, size - start).toString('utf8');
		// Read from the middle of a line: that partial line is dropped.
		return start === 0 ? {text, isCut: false} : {text: text.slice(text.indexOf('\n') + 1), isCut: true};
	} finally {
		closeSync(file.fd);
	}
}

function splitLines(text: string): string[] {
	const lines = text.split('\n');
	if (lines.at(-1) === '') lines.pop();
	return lines;
}

const CAP_WORDS = `${OUTPUT_FILE_CAP_BYTES / (1024 * 1024)} MiB`;

/** A wrapped run's output: the end of its file, and of the file before it when that is short. */
function readOutput(path: string): TaskLog {
	const current = readTail(path, OUTPUT_TAIL_BYTES);
	let text = current.text;
	let isCut = current.isCut;
	if (!isCut && text.length < OUTPUT_TAIL_BYTES) {
		const previous = readTail(`${path}.1`, OUTPUT_TAIL_BYTES - text.length);
		text = previous.text + text;
		isCut = previous.isCut || previous.text !== '';
	}
	const lines = splitLines(text).map(plainLine).slice(-LOG_VIEW_LINES);
	return {
		source: 'output',
		origin: `output of the run, kept in ${path}`,
		lines,
		note: isCut ? `older output not shown (each run keeps its last ${CAP_WORDS} to 2× that)` : null,
	};
}

/**
 * The end of a transcript: a path an agent's payload named, so it is read as transcript tokens
 * are (docs/hooks.md): under the `projects/` folder it was registered under, no link, a regular file.
 */
function readTranscriptTail(path: string): {text: string; isCut: boolean} {
	const root = projectsRootOf(path);
	if (root === null) return {text: '', isCut: false};
	let file: ReturnType<typeof openAgentFileUnder>;
	try {
		file = openAgentFileUnder(path, [root], MAX_TRANSCRIPT_BYTES);
	} catch {
		return {text: '', isCut: false};
	}
	try {
		const tail = readAgentTail(file, TRANSCRIPT_TAIL_BYTES);
		const text = tail.bytes.toString('utf8');
		// Read from the middle of a line: that partial line is dropped.
		return tail.isCut ? {text: text.slice(text.indexOf('\n') + 1), isCut: true} : {text, isCut: false};
	} finally {
		closeSync(file.fd);
	}
}

/** An agent session's last messages, from the end of its transcript. */
function readTranscript(path: string, agent: string): TaskLog {
	const {text, isCut} = readTranscriptTail(path);
	const lines = messageLines(transcriptMessages(splitLines(text), agent))
		.map(plainLine)
		.slice(-LOG_VIEW_LINES);
	return {
		source: 'transcript',
		origin: `last messages of the session, from its transcript ${path}`,
		lines,
		note: isCut ? 'older messages not read' : null,
	};
}

/** Where a task's log is, from what its producers recorded. */
type LogPlace =
	| {readonly kind: 'output'; readonly path: string}
	| {readonly kind: 'transcript'; readonly path: string; readonly agent: string}
	| {readonly kind: 'ledger'; readonly agent: string}
	| {readonly kind: 'none'; readonly why: string};

function text(value: unknown): string | null {
	return typeof value === 'string' && value !== '' ? value : null;
}

/** Finds where a task's log is: the wrapper's output file, an agent session's transcript, or why there is none. */
function locate(ledger: Ledger, taskId: string): LogPlace {
	const task = ledger.reader.task(taskId);
	if (!task) return {kind: 'none', why: `task ${taskId} is not in the ledger`};
	// The wrapper's own registration: its agent's hooks record one too (SessionStart), which names no output.
	const registrations = ledger.reader.latestEventsOf(taskId, [EventType.registered], 50);
	const registered = registrations.find(event => text(event.data.output) !== null) ?? registrations.at(-1);
	const output = text(registered?.data.output);
	if (output) return {kind: 'output', path: output};
	if (task.source === 'wrapper') {
		return registered?.data.agent === 'claude'
			? {
					kind: 'none',
					why: 'Claude Code ran in its own terminal, so its output was not kept; its session task (source claude) shows its last messages',
				}
			: {kind: 'none', why: 'no output was kept for this run (it started before the wrapper kept output)'};
	}
	const agent = task.source.startsWith('codex') ? 'codex' : task.source.startsWith('claude') ? 'claude' : null;
	if (!agent) {
		return task.status === 'untracked'
			? {kind: 'none', why: 'controlroom did not start this process, so its output is not kept'}
			: {kind: 'none', why: `no output is kept for a ${task.source} task; its timeline (enter) has what it recorded`};
	}
	// Only a transcript the token reader took (checked to lie where the agent keeps them), not any path a payload names.
	const transcripts = ledger.reader.transcriptsOf([taskId]).filter(cursor => !cursor.path.includes('/subagents/'));
	const path = transcripts.at(-1)?.path ?? null;
	return path ? {kind: 'transcript', path, agent} : {kind: 'ledger', agent};
}

function readLedgerMessages(ledger: Ledger, taskId: string, agent: string, why: string): TaskLog {
	const events = ledger.reader.latestEventsOf(taskId, [EventType.agentEvent], LEDGER_EVENTS).reverse();
	const messages = ledgerMessages(
		events.map(event => ({event: event.data.event ?? null, payload: event.data.payload})),
		agent,
	);
	return {
		source: 'ledger',
		origin: `last messages of the session, as its hooks recorded them (${why})`,
		lines: messageLines(messages).map(plainLine).slice(-LOG_VIEW_LINES),
		note: null,
	};
}

function read(ledger: Ledger, place: LogPlace, taskId: string): TaskLog {
	switch (place.kind) {
		case 'output':
			return readOutput(place.path);
		case 'transcript': {
			const log = readTranscript(place.path, place.agent);
			return log.lines.length > 0 ? log : readLedgerMessages(ledger, taskId, place.agent, `nothing to show in ${place.path}`);
		}
		case 'ledger':
			return readLedgerMessages(ledger, taskId, place.agent, 'its transcript is not known');
		case 'none':
			return {source: 'none', origin: place.why, lines: [], note: null};
	}
}

/** The files whose changes mean new lines: the output file (and its rotation), the transcript, or the ledger's WAL. */
function watchedFiles(ledger: Ledger, place: LogPlace): {dir: string; names: ReadonlySet<string>} | null {
	switch (place.kind) {
		case 'output':
			return {dir: dirname(place.path), names: new Set([basename(place.path), `${basename(place.path)}.1`])};
		case 'transcript':
			return {dir: dirname(place.path), names: new Set([basename(place.path)])};
		case 'ledger':
			return {dir: dirname(ledger.path), names: new Set([basename(ledger.path), `${basename(ledger.path)}-wal`])};
		case 'none':
			return null;
	}
}

/**
 * The board's log reader on a ledger: finds a task's log, reads its tail, and re-reads when its
 * file changes (inotify on the file's folder, which also sees the file made or rotated), at most
 * once a frame.
 */
export function createLogReader(ledger: Ledger): LogReader {
	return {
		watch(taskId, onRead) {
			const place = locate(ledger, taskId);
			let timer: NodeJS.Timeout | undefined;
			let lastRead = 0;
			let isClosed = false;
			const readNow = () => {
				timer = undefined;
				if (isClosed) return;
				lastRead = Date.now();
				onRead(read(ledger, place, taskId));
			};
			readNow();
			const files = watchedFiles(ledger, place);
			let watcher: FSWatcher | null = null;
			if (files) {
				try {
					watcher = watch(files.dir, (_event, name) => {
						if (name !== null && !files.names.has(name.toString())) return;
						timer ??= setTimeout(readNow, Math.max(0, lastRead + FRAME_MS - Date.now()));
					});
					watcher.on('error', () => watcher?.close());
				} catch (error) {
					onRead({...read(ledger, place, taskId), note: `not following new lines: ${(error as Error).message}`});
				}
			}
			return () => {
				isClosed = true;
				clearTimeout(timer);
				watcher?.close();
			};
		},
	};
}
