import {createHash} from 'node:crypto';
import {decideActor, NotAPersonError, type Actor, type Door, type FleetAsker} from '../core/actor.ts';
import {EventType} from '../core/events.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {gatherActorFacts} from '../producers/actor-facts.ts';
import {PasskeyRequiredError} from '../core/passkey/required-error.ts';
import type {PasskeyItemKind} from '../core/passkey/signed-answer.ts';
import {isGenuineProof, type PasskeyProof} from './passkey/answer.ts';
import {itemLink} from './passkey/item-link.ts';
import {approvalsPolicy} from './passkey/policy.ts';

// Every gate function that says yes (or sends work back) asks here first, before it reads or
// writes anything else (docs/security.md): the one asking must be a person. There is no way
// around it in the code: no flag, no variable, no parameter that skips the check.

/** The verbs only a person may answer with. */
export type YesVerb =
	| 'effects approve'
	| 'effects reject'
	| 'accept'
	| 'ack'
	| 'send-back'
	| 'review'
	| 'decide'
	| 'contract ready'
	| 'take --for'
	| 'looked'
	// A word to a running agent (docs/messages.md).
	| 'send'
	// Letting a connector or a script in (docs/serve.md).
	| 'serve approve'
	| 'serve tokens new'
	// A sign-in link for the web board (docs/web.md).
	| 'web link'
	// Enrolling a passkey (docs/passkeys.md).
	| 'web enroll'
	// Removing a run's worktree whatever it holds (docs/wrapper.md).
	| 'worktree remove --force';

/** One ask for a yes: the verb, what it is about (a task, an order, a queue entry), and the door it came through. */
export type YesRequest = {
	readonly verb: YesVerb;
	readonly target: string;
	/** Who writes the events: cli, board, fleet. */
	readonly source: string;
	/** A fleet board's request, carried out by this host's sync; absent: this process's own terminal. */
	readonly door?: Door;
	/** A passkey answer checked by verifyAnswer (docs/passkeys.md): the gate records it with its own event. */
	readonly passkey?: PasskeyProof;
};

/**
 * The verbs `approvals: passkey` binds (docs/passkeys.md), each with the kind of item its page
 * answers. The others (contract ready, take --for, looked, serve's) stay under the actor rule.
 */
const PASSKEY_BOUND: Partial<Record<YesVerb, PasskeyItemKind>> = {
	'effects approve': 'order',
	'effects reject': 'order',
	accept: 'handin',
	ack: 'need',
	'send-back': 'handin',
	review: 'review',
	decide: 'decision',
};

/** The person who said yes, as recorded beside it. */
export type PersonActor = Actor & {readonly kind: 'person'};

/** A target as recorded: one line, bounded (the ledger keeps what an agent typed, shown escaped). */
function recordedTarget(target: string): string {
	const line = target.replace(/\s+/g, ' ').trim();
	return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/**
 * Records a refused attempt (docs/security.md): `gate.refused` on the target, and one entry in the
 * queue's needs lane per agent, verb and target (a repeat refreshes it), so the board shows it.
 */
function recordRefusal(
	ledger: Ledger,
	request: YesRequest,
	actor: Actor & {kind: 'agent'},
	facts: {pid: number; user: string | null; uid: number | null},
): void {
	const target = recordedTarget(request.target);
	const agent = actor.agent;
	const who = agent ? (agent.taskId ?? `${agent.name ?? 'process'} ${agent.pid}`) : null;
	// One entry per agent (or, when none is named, per reason), verb and target: a retry refreshes it.
	const key = `${request.verb}\0${target}\0${who ?? actor.reason}`;
	const entry = `refused-${createHash('sha1').update(key).digest('hex').slice(0, 12)}`;
	const at = Date.now();
	const source = request.source;
	try {
		ledger.writer.append([
			{
				taskId: target === '' ? entry : target,
				type: EventType.gateRefused,
				at,
				source,
				data: {
					verb: request.verb,
					target,
					reason: actor.reason,
					pid: facts.pid,
					agentPid: agent?.pid ?? null,
					agentName: agent?.name ?? null,
					agentTask: agent?.taskId ?? null,
					user: facts.user,
					uid: facts.uid,
					door: request.door?.kind ?? 'terminal',
				},
			},
			{
				taskId: entry,
				type: EventType.needRaised,
				at,
				source,
				data: {
					message: `refused: an agent asked to ${request.verb} ${target} (${who === null ? '' : `${who}: `}${actor.reason})`,
					kind: 'refused',
					lane: 'needs',
					actor: who ?? `pid ${facts.pid}`,
				},
			},
		]);
	} catch {
		// A ledger this process cannot write (read-only, full, locked): the refusal stands unrecorded.
	}
}

/** A yes that carries a passkey answer checked in this process: the passkey's holder says it. */
function passkeySigner(request: YesRequest, proof: PasskeyProof): PersonActor {
	if (!isGenuineProof(proof))
		throw new PasskeyRequiredError(
			`${request.verb} ${recordedTarget(request.target)}: refused: the passkey answer was not checked here, or was already used`,
		);
	return {
		kind: 'person',
		user: `passkey ${proof.passkey.name}`,
		uid: null,
		reason: 'an answer signed by an enrolled passkey, checked',
	};
}

/**
 * Under `approvals: passkey` an answer without a passkey is refused whoever gives it, a person at
 * a terminal included: recorded (an agent's attempt as the actor rule records it), and one line
 * saying where to answer: the item's page.
 */
function refuseUnsigned(
	ledger: Ledger,
	request: YesRequest,
	kind: PasskeyItemKind,
	actor: Actor,
	facts: {pid: number; user: string | null; uid: number | null},
): never {
	const target = recordedTarget(request.target);
	const reason = 'not passkey-signed (approvals: passkey)';
	if (actor.kind === 'agent') recordRefusal(ledger, request, {...actor, reason: `${actor.reason}; ${reason}`}, facts);
	else
		try {
			ledger.writer.append([
				{
					taskId: target === '' ? 'passkeys' : target,
					type: EventType.gateRefused,
					at: Date.now(),
					source: request.source,
					data: {
						verb: request.verb,
						target,
						reason,
						pid: facts.pid,
						user: facts.user,
						uid: facts.uid,
						door: request.door?.kind ?? 'terminal',
					},
				},
			]);
		} catch {
			// A ledger this process cannot write: the refusal stands unrecorded.
		}
	throw new PasskeyRequiredError(
		`${request.verb} ${target}: refused: approvals: passkey is on and this answer is not passkey-signed; answer it with your passkey at ${itemLink(ledger.path, kind, request.target)}`,
	);
}

/**
 * The actor rule at a gate: returns the person asking, or records the refused attempt and throws
 * NotAPersonError (one line: what was refused and why the asker is an agent; exit 77).
 */
export function requirePerson(ledger: Ledger, request: YesRequest): PersonActor {
	if (request.passkey !== undefined) return passkeySigner(request, request.passkey);
	const facts = gatherActorFacts(ledger, request.door ?? {kind: 'terminal'});
	const actor = decideActor(facts);
	const bound = PASSKEY_BOUND[request.verb];
	if (bound !== undefined && approvalsPolicy(ledger) === 'passkey') refuseUnsigned(ledger, request, bound, actor, facts);
	if (actor.kind === 'person') return actor;
	recordRefusal(ledger, request, actor, facts);
	throw new NotAPersonError(
		`${request.verb} ${recordedTarget(request.target)}: refused: only a person at a terminal says yes, and ${actor.reason} (recorded; the board shows it)`,
		actor,
	);
}

/**
 * Who asks on a fleet board (which has no local ledger): decided here by the same rule, and sent
 * with each request, so the task's host can tell a person's yes from an agent's (docs/fleet.md).
 */
export function askerOnThisTerminal(): FleetAsker {
	const actor = decideActor(gatherActorFacts(null, {kind: 'terminal'}));
	return {isPerson: actor.kind === 'person', user: actor.kind === 'person' ? actor.user : null, reason: actor.reason};
}
