import {createHash, randomBytes} from 'node:crypto';
import {mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {EventType, type EventOfType} from '../core/events.ts';
import {isEnded} from '../core/status.ts';
import {terminalSafe} from '../core/terminal-text.ts';
import {overTextLimit} from '../core/text-limits.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import type {Door} from '../core/actor.ts';
import {requirePerson} from './person-gate.ts';

// A word to a running agent (docs/messages.md). `send` (the CLI, the board's m, a reaction's send)
// records `message.sent` on the task and leaves a hint file in the mailbox folder beside the
// ledger; the agent's Stop hook (`controlroom message-hook`, whose shell part starts Node only
// when a hint is there) gives every undelivered message of its task as the reason of a
// `decision: "block"`, which Claude Code and Codex put in the next request as the agent goes on,
// and records `message.delivered` once per message (its dedup key). The ledger decides what is
// pending; a hint only says "look".

/** The longest message: 50 lines of a CI log fit, a pasted file does not (docs/messages.md, "Limits"). */
export const MESSAGE_MAX_CHARS = 16_000;
/** The most text one Stop hook gives: the rest waits for the next turn boundary. */
const DELIVERY_MAX_CHARS = 2 * MESSAGE_MAX_CHARS;
/** How many of a task's latest message events are read to find the pending ones. */
const MESSAGE_EVENTS_READ = 1000;

/** Exit status of a message refused for its text (empty, over the cap): the command line is wrong. */
export const MESSAGE_USAGE_EXIT = 64;
/** Exit status of a message refused for its task (unknown, ended, no agent hooks to deliver it). */
export const MESSAGE_REFUSED_EXIT = 1;

/** A message refused: one line, nothing written; `exitCode` is 64 (the text) or 1 (the task). */
export class MessageError extends Error {
	readonly exitCode: number;
	constructor(message: string, exitCode: number) {
		super(message);
		this.name = 'MessageError';
		this.exitCode = exitCode;
	}
}

/** Who a message is from: a person (after the actor rule) or a reaction rule. */
export type MessageFrom =
	| {readonly kind: 'person'; readonly user: string | null; readonly uid?: number | null}
	| {readonly kind: 'reaction'; readonly rule: string};

export type QueueRequest = {
	/** A task id, an id prefix, a session id or a title, as every command names one. */
	readonly taskRef: string;
	readonly text: string;
	readonly from: MessageFrom;
	/** Who writes the event: cli, board, reactions. */
	readonly source: string;
	/** Same key, same message: a second queue with it adds nothing (isNew false, the same id). */
	readonly dedupKey?: string | null;
	readonly at?: number;
};

export type Queued = {readonly taskId: string; readonly messageId: string; readonly isNew: boolean};

/** A message not yet given to its agent. */
export type PendingMessage = {
	readonly messageId: string;
	readonly text: string;
	readonly from: string;
	readonly by: string;
	readonly at: number;
};

/** The mailbox folder beside a ledger: one hint file per message not known delivered. */
export function mailboxDir(ledgerFile: string): string {
	return join(dirname(ledgerFile), 'mailbox');
}

/** Why a text cannot be a message, or null when it can. */
export function messageTextProblem(text: string): string | null {
	if (text.trim() === '') return 'the message is empty';
	return overTextLimit('the message', text, MESSAGE_MAX_CHARS);
}

function newMessageId(dedupKey: string | null | undefined): string {
	const body =
		dedupKey === null || dedupKey === undefined
			? randomBytes(5).toString('hex')
			: createHash('sha256').update(dedupKey).digest('hex').slice(0, 10);
	return `m-${body}`;
}

/** Leaves the hint that makes the Stop hook start Node; written whole (a temporary name, renamed). */
function leaveHint(ledgerFile: string, messageId: string, taskId: string): void {
	const folder = mailboxDir(ledgerFile);
	mkdirSync(folder, {recursive: true, mode: 0o700});
	const temporary = join(folder, `.${messageId}.${process.pid}.tmp`);
	writeFileSync(temporary, `${taskId}\n`, {mode: 0o600});
	renameSync(temporary, join(folder, messageId));
}

/**
 * Queues a message for a live task (see the file's opening comment). No actor check here: the CLI
 * and the board call `sendAsPerson`, which checks the actor rule first; a reaction calls this with
 * `from.kind` 'reaction'. Throws MessageError (nothing written) for an empty or too long text, an
 * unknown or ended task, or one no agent hook reports from; AmbiguousTaskError for a TASK that
 * names several.
 */
export function queueMessage(ledger: Ledger, request: QueueRequest): Queued {
	const problem = messageTextProblem(request.text);
	if (problem !== null) throw new MessageError(`send: ${problem}`, MESSAGE_USAGE_EXIT);
	const task = request.taskRef.trim() === '' ? undefined : ledger.reader.resolveTask(request.taskRef);
	if (!task) throw new MessageError(`send: no task '${terminalSafe(request.taskRef)}' in ${ledger.path}`, MESSAGE_REFUSED_EXIT);
	if (isEnded(task.status))
		throw new MessageError(
			`send: task ${terminalSafe(task.id)} has ended (${task.status}); a message reaches only a running agent`,
			MESSAGE_REFUSED_EXIT,
		);
	if (task.source !== 'wrapper' && task.sessionId === null)
		throw new MessageError(
			`send: task ${terminalSafe(task.id)} reports through no agent hooks (${task.source}): nothing would deliver the message`,
			MESSAGE_REFUSED_EXIT,
		);
	if (task.source !== 'wrapper' && task.parentId !== null)
		throw new MessageError(
			`send: task ${terminalSafe(task.id)} is a helper of ${terminalSafe(task.parentId)}: send to ${terminalSafe(task.parentId)}, whose turns it runs in`,
			MESSAGE_REFUSED_EXIT,
		);
	const messageId = newMessageId(request.dedupKey);
	const from = request.from;
	const {appended} = ledger.writer.append([
		{
			taskId: task.id,
			type: EventType.messageSent,
			at: request.at ?? Date.now(),
			source: request.source,
			data: {
				messageId,
				text: request.text,
				from: from.kind,
				by: from.kind === 'person' ? (from.user ?? 'a person') : from.rule,
				osUser: from.kind === 'person' ? from.user : null,
				uid: from.kind === 'person' ? (from.uid ?? null) : null,
			},
			dedupKey: request.dedupKey ?? null,
		},
	]);
	if (appended > 0) {
		try {
			leaveHint(ledger.path, messageId, task.id);
		} catch {
			// No hint: the Stop hook's shell part starts Node only when some hint is there, so the
			// message waits for the next one any message leaves. The ledger still holds it.
		}
	}
	return {taskId: task.id, messageId, isNew: appended > 0};
}

/**
 * `controlroom send` and the board's m: the actor rule first (only a person sends; an agent's
 * attempt is refused, recorded and shown: exit 77), then `queueMessage`.
 */
export function sendAsPerson(
	ledger: Ledger,
	request: {readonly taskRef: string; readonly text: string; readonly source: string; readonly door?: Door},
): Queued {
	const person = requirePerson(ledger, {
		verb: 'send',
		target: request.taskRef,
		source: request.source,
		...(request.door ? {door: request.door} : {}),
	});
	return queueMessage(ledger, {
		taskRef: request.taskRef,
		text: request.text,
		source: request.source,
		from: {kind: 'person', user: person.user, uid: person.uid},
	});
}

/** A task's messages not yet delivered, oldest first. */
export function pendingMessages(ledger: Ledger, taskId: string): PendingMessage[] {
	const events = ledger.reader
		.latestEventsOf(taskId, [EventType.messageSent, EventType.messageDelivered], MESSAGE_EVENTS_READ)
		.sort((a, b) => a.seq - b.seq);
	const delivered = new Set(
		events.flatMap(event => (event.type === EventType.messageDelivered && event.data.messageId ? [event.data.messageId] : [])),
	);
	return events.flatMap(event => {
		if (event.type !== EventType.messageSent) return [];
		const sent = event as EventOfType<'message.sent'>;
		const {messageId, text} = sent.data;
		if (!messageId || !text || delivered.has(messageId)) return [];
		return [{messageId, text, from: sent.data.from ?? 'person', by: sent.data.by ?? 'a person', at: sent.at}];
	});
}

/**
 * Gives a task's pending messages to its agent: records `message.delivered` for each (its dedup
 * key makes the first of two hooks at once the only one that gives it), and returns those this
 * call delivered, oldest first, at most about DELIVERY_MAX_CHARS (the rest wait for the next turn
 * boundary). Their hint files are removed, and so are hints of tasks that ended.
 */
export function deliverPending(
	ledger: Ledger,
	taskId: string,
	how: {readonly how: string; readonly agent: string; readonly session: string | null; readonly at?: number},
): PendingMessage[] {
	const given: PendingMessage[] = [];
	let chars = 0;
	for (const message of pendingMessages(ledger, taskId)) {
		if (given.length > 0 && chars + message.text.length > DELIVERY_MAX_CHARS) break;
		const {appended} = ledger.writer.append([
			{
				taskId,
				type: EventType.messageDelivered,
				at: how.at ?? Date.now(),
				source: how.agent,
				data: {messageId: message.messageId, how: how.how, agent: how.agent, session: how.session},
				dedupKey: `message-delivered:${message.messageId}`,
			},
		]);
		if (appended === 0) continue;
		given.push(message);
		chars += message.text.length;
	}
	clearHints(ledger, taskId, new Set(given.map(message => message.messageId)));
	return given;
}

/** Removes the hints of messages just delivered, and of messages whose task is gone or ended. */
function clearHints(ledger: Ledger, taskId: string, delivered: ReadonlySet<string>): void {
	const folder = mailboxDir(ledger.path);
	let names: string[];
	try {
		names = readdirSync(folder).filter(name => name.startsWith('m-'));
	} catch {
		return;
	}
	const stillPending = new Set(pendingMessages(ledger, taskId).map(message => message.messageId));
	for (const name of names) {
		const file = join(folder, name);
		let owner: string;
		try {
			owner = readFileSync(file, 'utf8').trim();
		} catch {
			continue;
		}
		const isDone =
			owner === taskId
				? delivered.has(name) || !stillPending.has(name)
				: (() => {
						const task = ledger.reader.task(owner);
						return !task || isEnded(task.status);
					})();
		if (!isDone) continue;
		try {
			unlinkSync(file);
		} catch {
			// removed by another hook at once
		}
	}
}

/** A message's text as the agent is given it: each line made safe (escape codes shown, not acted on), the lines kept. */
function agentSafe(text: string): string {
	return text
		.split('\n')
		.map(line => terminalSafe(line))
		.join('\n');
}

/** The Stop hook's reason: what the agent reads as it goes on. */
export function deliveryReason(messages: readonly PendingMessage[]): string {
	const parts = messages.map(
		message =>
			`controlroom: a message from ${agentSafe(message.by)} (${message.from === 'reaction' ? 'a reaction rule' : 'a person'}), sent while you worked (${message.messageId}):\n\n${agentSafe(message.text)}`,
	);
	return parts.join('\n\n---\n\n');
}
