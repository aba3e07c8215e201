import * as z from 'zod/mini';
import {approveEffects} from '../gates/effects/approve.ts';
import {ApprovalError, sendBackHeld} from '../gates/effects/held.ts';
import type {Launcher} from '../gates/review/rerun.ts';
import {sendBack} from '../gates/review/send-back.ts';
import {ReviewGateError} from '../gates/review/subject.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {acknowledgeEntry} from '../ledger/queue.ts';
import {AmbiguousTaskError} from '../ledger/reader.ts';
import {stopTask, type StopResult} from '../producers/stop.ts';

/** How a host answered a fleet request; recorded as `fleet.request_handled` and shipped back. */
export type VerbOutcome = {readonly outcome: 'done' | 'refused' | 'failed'; readonly message: string};

/** What a verb is carried out on: this host's ledger and the task the request names, and how this host starts controlroom (a send-back's next run). */
export type VerbContext = {readonly ledger: Ledger; readonly taskId: string; readonly launcher: Launcher};

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
	acknowledge: verb(z.object({signalAt: z.number()}), async ({ledger, taskId}, args) => {
		acknowledgeEntry(ledger, taskId, args.signalAt, Date.now(), 'fleet');
		return {outcome: 'done', message: `acknowledged ${taskId}`};
	}),
	// The board's `x` on a task (the function behind `controlroom send-back`): the task is the one sent back.
	sendBack: verb(z.object({reason: z.string(), by: z.string()}), async ({ledger, taskId, launcher}, args) => {
		try {
			const result = sendBack({ledger, ref: taskId, reason: args.reason, by: args.by, source: 'fleet', launcher});
			return {outcome: 'done', message: result.message};
		} catch (error) {
			if (error instanceof ReviewGateError || error instanceof AmbiguousTaskError)
				return {outcome: 'refused', message: error.message};
			throw error;
		}
	}),
	// The board's `a` (the function behind `controlroom effects approve`): the task is the work order, the
	// effects its held ones to run (all of them when none are named).
	approve: verb(z.object({only: z.optional(z.array(z.string()))}), async ({ledger, taskId}, args) => {
		const result = await approveEffects(ledger, taskId, {source: 'fleet', ...(args.only === undefined ? {} : {only: args.only})});
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
	sendBackOrder: verb(z.object({reason: z.string()}), async ({ledger, taskId}, args) => {
		try {
			const result = sendBackHeld(ledger, taskId, args.reason, 'fleet');
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
	request: {readonly verb: string; readonly taskId: string; readonly args: unknown},
	launcher: Launcher,
): Promise<VerbOutcome> {
	if (!isFleetVerb(request.verb)) {
		return {outcome: 'refused', message: `this host's controlroom does not know the verb '${request.verb}' (upgrade it)`};
	}
	const entry: Verb<z.ZodMiniType> = FLEET_VERBS[request.verb];
	const args = entry.args.safeParse(request.args);
	if (!args.success)
		return {outcome: 'refused', message: `${request.verb}: bad arguments (${args.error.message.split('\n')[0]})`};
	try {
		return await entry.run({ledger, taskId: request.taskId, launcher}, args.data);
	} catch (error) {
		return {outcome: 'failed', message: `${request.verb} failed: ${error instanceof Error ? error.message : String(error)}`};
	}
}
