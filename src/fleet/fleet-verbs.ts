import * as z from 'zod/mini';
import {NotAPersonError, type Door, type FleetAsker} from '../core/actor.ts';
import {approveEffects} from '../gates/effects/approve.ts';
import {ApprovalError, sendBackHeld} from '../gates/effects/held.ts';
import type {Launcher} from '../gates/review/rerun.ts';
import {sendBack} from '../gates/review/send-back.ts';
import {ReviewGateError} from '../gates/review/subject.ts';
import {acknowledgeSignal} from '../gates/acknowledge.ts';
import {requirePerson} from '../gates/person-gate.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {AmbiguousTaskError} from '../ledger/reader.ts';
import {stopTask, type StopResult} from '../producers/stop.ts';

/** How a host answered a fleet request; recorded as `fleet.request_handled` and shipped back. */
export type VerbOutcome = {readonly outcome: 'done' | 'refused' | 'failed'; readonly message: string};

/**
 * What a verb is carried out on: this host's ledger and the task the request names, how this host
 * starts controlroom (a send-back's next run), and the request as the gates' actor rule sees it.
 */
export type VerbContext = {
	readonly ledger: Ledger;
	readonly taskId: string;
	readonly launcher: Launcher;
	readonly request: {readonly id: number; readonly requestedBy: string};
	/** This host carries out approvals no person's key signed (its sync's --accept-unsigned-approvals). */
	readonly acceptsUnsigned: boolean;
};

/**
 * Why this host will not carry out an approval from the fleet: a yes that runs effects must be signed
 * by the person's key (their passkey: docs/security.md), and this controlroom cannot check such a
 * signature yet, so none is carried out unless the host's owner chose to take unsigned ones.
 */
export const UNSIGNED_APPROVAL =
	"a fleet approval runs only when a person's key signed it, and this host cannot check one yet: approve on this host " +
	'(its board or controlroom effects approve), or let its sync take unsigned approvals (--accept-unsigned-approvals, docs/fleet.md)';

/** Who asked, as the fleet board's own check found it (docs/security.md): on every yes verb's request. */
const askerSchema = z.optional(z.object({isPerson: z.boolean(), user: z.nullable(z.string()), reason: z.string()}));

/** The door a yes comes in through from a fleet board: the request, and who asked there. */
function fleetDoor(context: VerbContext, asker: FleetAsker | undefined): Door {
	return {kind: 'fleet', requestId: context.request.id, requestedBy: context.request.requestedBy, asker: asker ?? null};
}

type Verb<S extends z.ZodMiniType> = {
	/** The request's arguments, validated before anything runs. */
	readonly args: S;
	readonly run: (context: VerbContext, args: z.infer<S>) => Promise<VerbOutcome>;
};

const verb = <S extends z.ZodMiniType>(args: S, run: Verb<S>['run']): Verb<S> => ({args, run});

function fromStop(result: StopResult): VerbOutcome {
	return {outcome: result.outcome === 'stopped' ? 'done' : 'refused', message: result.message};
}

/**
 * What a fleet board may ask a host to do, each carried out through the same function as the
 * board's own key on that host. Adding a verb is one entry here (and its key on the board).
 */
export const FLEET_VERBS = {
	stop: verb(z.object({graceMs: z.optional(z.number())}), async ({ledger, taskId}, args) =>
		fromStop(await stopTask(ledger, taskId, {source: 'fleet', ...(args.graceMs === undefined ? {} : {graceMs: args.graceMs})})),
	),
	acknowledge: verb(z.object({signalAt: z.number(), asker: askerSchema}), async (context, args) => {
		acknowledgeSignal(context.ledger, {
			taskId: context.taskId,
			signalAt: args.signalAt,
			now: Date.now(),
			source: 'fleet',
			door: fleetDoor(context, args.asker),
		});
		return {outcome: 'done', message: `acknowledged ${context.taskId}`};
	}),
	// The board's `x` on a task (the function behind `controlroom send-back`): the task is the one sent back.
	sendBack: verb(z.object({reason: z.string(), by: z.string(), asker: askerSchema}), async (context, args) => {
		try {
			const result = sendBack({
				ledger: context.ledger,
				ref: context.taskId,
				reason: args.reason,
				by: args.by,
				source: 'fleet',
				launcher: context.launcher,
				door: fleetDoor(context, args.asker),
			});
			return {outcome: 'done', message: result.message};
		} catch (error) {
			if (error instanceof ReviewGateError || error instanceof AmbiguousTaskError)
				return {outcome: 'refused', message: error.message};
			throw error;
		}
	}),
	// The board's `a` (the function behind `controlroom effects approve`): the task is the work order, the
	// effects its held ones to run (all of them when none are named).
	approve: verb(z.object({only: z.optional(z.array(z.string())), asker: askerSchema}), async (context, args) => {
		const {taskId} = context;
		if (!context.acceptsUnsigned) {
			// Who asked is checked first, so an agent's attempt is refused and recorded as it always was.
			requirePerson(context.ledger, {
				verb: 'effects approve',
				target: taskId,
				source: 'fleet',
				door: fleetDoor(context, args.asker),
			});
			return {outcome: 'refused', message: `${taskId}: nothing ran: ${UNSIGNED_APPROVAL}`};
		}
		const result = await approveEffects(context.ledger, taskId, {
			source: 'fleet',
			door: fleetDoor(context, args.asker),
			...(args.only === undefined ? {} : {only: args.only}),
		});
		if (result.problems.length > 0) return {outcome: 'refused', message: `${taskId}: nothing ran: ${result.problems.join('; ')}`};
		const outcomes = result.outcomes.map(
			outcome => `${outcome.id} ${outcome.outcome}${outcome.detail ? ` (${outcome.detail})` : ''}`,
		);
		return {
			outcome: result.isSuccess ? 'done' : 'failed',
			message: `${taskId}: ${[...outcomes, ...result.notes].join(', ') || 'nothing held'}`,
		};
	}),
	// The board's `x` on a held work order (the function behind it on the host's own board): the task is
	// the work order, its held effects are dropped with the reason, nothing runs.
	sendBackOrder: verb(z.object({reason: z.string(), asker: askerSchema}), async (context, args) => {
		try {
			const result = sendBackHeld(context.ledger, context.taskId, args.reason, 'fleet', fleetDoor(context, args.asker));
			return {outcome: result.ids.length === 0 ? 'refused' : 'done', message: result.message};
		} catch (error) {
			if (error instanceof ApprovalError) return {outcome: 'refused', message: error.message};
			throw error;
		}
	}),
} as const;

/** A verb a fleet board can request. */
export type FleetVerb = keyof typeof FLEET_VERBS;

/** Whether `name` is a verb this build can carry out. */
export function isFleetVerb(name: string): name is FleetVerb {
	return Object.hasOwn(FLEET_VERBS, name);
}

/**
 * Carries out one request on this host: an unknown verb or bad arguments are refused with the
 * reason, a verb that throws is `failed` with its message; nothing here throws.
 */
export async function carryOut(
	ledger: Ledger,
	request: {
		readonly id: number;
		readonly verb: string;
		readonly taskId: string;
		readonly args: unknown;
		readonly requestedBy: string;
	},
	launcher: Launcher,
	acceptsUnsigned = false,
): Promise<VerbOutcome> {
	if (!isFleetVerb(request.verb)) {
		return {outcome: 'refused', message: `this host's controlroom does not know the verb '${request.verb}' (upgrade it)`};
	}
	const entry: Verb<z.ZodMiniType> = FLEET_VERBS[request.verb];
	const args = entry.args.safeParse(request.args);
	if (!args.success)
		return {outcome: 'refused', message: `${request.verb}: bad arguments (${args.error.message.split('\n')[0]})`};
	try {
		return await entry.run(
			{ledger, taskId: request.taskId, launcher, request: {id: request.id, requestedBy: request.requestedBy}, acceptsUnsigned},
			args.data,
		);
	} catch (error) {
		// An agent's yes (or one whose board did not say a person asked) is refused, and recorded here.
		if (error instanceof NotAPersonError) return {outcome: 'refused', message: error.message};
		return {outcome: 'failed', message: `${request.verb} failed: ${error instanceof Error ? error.message : String(error)}`};
	}
}
