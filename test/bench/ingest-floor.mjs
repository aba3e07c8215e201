// The floor for `controlroom ingest`: a minimal loop that reads the same history, JSON.parses each
// line and inserts the same rows (the same events per line, one task row per touched task per
// batch, keys of the real ones' shape and length) into a ledger with the same schema and indexes, in
// batched transactions. No validation, no projection logic, no hashing: what parsing and SQLite alone cost. Run as its own process:
//   node test/bench/ingest-floor.mjs HISTORY LEDGER [--hash]   (LEDGER made by `controlroom ingest` of an empty file)
// Without --hash it writes the rows of the ledger before its chain (no arrival, no link: the trigger
// that asks for one is dropped in this scratch ledger); with --hash it also chains each row as the
// writer does (SHA-256 of the previous link, the row's envelope with its arrival, and its data), the floor the
// chained ingest is held to.
// Prints {"lines", "events", "tasks"} on stdout.
import {openSync, readSync} from 'node:fs';
import {StringDecoder} from 'node:string_decoder';
import {createHash} from 'node:crypto';
import Database from 'better-sqlite3';

const BATCH_LINES = 2000;

/** Yields the file's lines, read in 1 MiB chunks. */
function* lines(file) {
	const fd = openSync(file, 'r');
	const buffer = Buffer.allocUnsafe(1 << 20);
	const decoder = new StringDecoder('utf8');
	let rest = '';
	for (;;) {
		const read = readSync(fd, buffer, 0, buffer.length, null);
		if (read === 0) break;
		const parts = (rest + decoder.write(buffer.subarray(0, read))).split('\n');
		rest = parts.pop() ?? '';
		yield* parts;
	}
	if (rest) yield rest;
}

const PLAN_TOOLS = new Set(['TodoWrite', 'update_plan']);

/** The rows our mapping makes for one payload, with the least work that makes the same rows. */
function rowsOf(envelope, key, push) {
	const payload = envelope.payload;
	const at = Date.parse(envelope.at);
	const task = `${envelope.source === 'codex' ? 'x-' : 'c-'}${payload.session_id.slice(0, 12)}`;
	const name = payload.hook_event_name;
	let index = 0;
	const row = (taskId, type, data) => push(taskId, type, at, envelope.source, JSON.stringify(data), `${key}:${index++}`);
	if (name === 'SessionStart') {
		row(task, 'task.registered', {source: envelope.source, sessionId: payload.session_id, cwd: payload.cwd});
		row(task, 'task.started', {});
	}
	row(task, 'agent.event', {
		event: name,
		sessionId: payload.session_id,
		cwd: payload.cwd,
		pid: null,
		startTime: null,
		pidFrom: null,
		toolName: payload.tool_name ?? null,
		titleHint: name === 'UserPromptSubmit' ? payload.prompt.slice(0, 80) : null,
		payload,
	});
	if ((name === 'PreToolUse' || name === 'PostToolUse') && PLAN_TOOLS.has(payload.tool_name)) {
		const list = payload.tool_input.todos ?? payload.tool_input.plan;
		row(task, 'task.progressed', {done: list.filter(item => item.status === 'completed').length, total: list.length});
	}
	if (name === 'Notification') row(task, 'need.raised', {message: payload.message, kind: payload.notification_type});
	if (name === 'SessionEnd') row(task, 'task.ended', {reason: payload.reason});
	if ((name === 'SubagentStart' || name === 'SubagentStop') && payload.agent_type) {
		const helper = `${task}.${payload.agent_id.slice(0, 6)}`;
		row(helper, 'task.registered', {source: 'claude-helper', parentId: task, title: payload.agent_type, cwd: payload.cwd});
		row(helper, name === 'SubagentStart' ? 'task.started' : 'task.ended', {});
	}
}

const [history, ledgerFile, mode] = process.argv.slice(2);
const isHashing = mode === '--hash';
const db = new Database(ledgerFile);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
if (!isHashing) db.exec('DROP TRIGGER IF EXISTS events_need_a_link');
const plainInsert = db.prepare(
	'INSERT OR IGNORE INTO events (task_id, type, at, source, data, dedup_key) VALUES (?, ?, ?, ?, ?, ?)',
);
const chainedInsert = db.prepare(
	'INSERT OR IGNORE INTO events (task_id, type, at, source, data, dedup_key, arrived_at, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
);
let previous = Buffer.alloc(32);
const insert = {
	run(taskId, type, at, source, data, key) {
		if (!isHashing) return plainInsert.run(taskId, type, at, source, data, key);
		const arrivedAt = Date.now();
		const envelope = `{"arrivedAt":${arrivedAt},"at":${at},"dedupKey":${JSON.stringify(key)},"source":${JSON.stringify(source)},"taskId":${JSON.stringify(taskId)},"type":${JSON.stringify(type)}}\n`;
		previous = createHash('sha256').update(previous).update(envelope).update(data).digest();
		return chainedInsert.run(taskId, type, at, source, data, key, arrivedAt, previous);
	},
};
const upsert = db.prepare(`
	INSERT INTO tasks (id, status, source, title, cwd, parent_id, session_id, pid, created_at, last_event_at, ended_at, last_seq, doc)
	VALUES (@id, @status, @source, NULL, @cwd, NULL, NULL, NULL, @at, @at, NULL, @seq, @doc)
	ON CONFLICT(id) DO UPDATE SET status = excluded.status, last_event_at = excluded.last_event_at, last_seq = excluded.last_seq, doc = excluded.doc`);
let events = 0;
let count = 0;
let pending = [];
const tasks = new Set();
const flush = db.transaction(() => {
	const touched = new Map();
	for (const [taskId, type, at, source, data, key] of pending) {
		const info = insert.run(taskId, type, at, source, data, key);
		events += info.changes;
		touched.set(taskId, {at, source, seq: Number(info.lastInsertRowid), type});
	}
	for (const [id, last] of touched) {
		tasks.add(id);
		// A document the size of a real task's (27 fields).
		const doc = JSON.stringify({
			id,
			title: null,
			source: last.source,
			role: null,
			status: 'running',
			pid: null,
			pgid: null,
			exitCode: null,
			signal: null,
			error: null,
			endReason: null,
			cwd: '/home/dev/repo-00',
			parentId: null,
			sessionId: id,
			progress: null,
			stepsDeclared: null,
			tokens: {input: null, output: null, total: null},
			budget: null,
			createdAt: last.at,
			startedAt: last.at,
			endedAt: null,
			lastEventAt: last.at,
			lastSeq: last.seq,
			planItems: null,
			isTurnOpen: false,
			hasCompletedTurn: false,
			stallSeconds: null,
			lastType: last.type,
		});
		upsert.run({id, status: 'running', source: last.source, cwd: null, at: last.at, seq: last.seq, doc});
	}
	pending = [];
});
const push = (...row) => pending.push(row);
for (const line of lines(history)) {
	if (line.length === 0) continue;
	count += 1;
	const envelope = JSON.parse(line);
	// A key of the real one's shape and length (time, 16 characters where the real one has 96 bits of
	// the line's sha1, an occurrence number), so the UNIQUE index holds what the real ingest's holds.
	rowsOf(envelope, `@${Date.parse(envelope.at).toString(16).padStart(12, '0')}.${count.toString(36).padStart(16, '0')}#1`, push);
	if (count % BATCH_LINES === 0) flush();
}
flush();
db.close();
const {user, system} = process.cpuUsage();
process.stdout.write(`${JSON.stringify({lines: count, events, tasks: tasks.size, cpuMs: (user + system) / 1000})}\n`);
