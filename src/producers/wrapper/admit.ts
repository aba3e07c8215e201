import {NO_SLOT_EXIT, signalExitCode} from '../../core/wrapper-outcome.ts';
import {acquireSlot, checkoutRoot, NoSlotError, type SlotHolder, type SlotLease} from '../admission.ts';
import type {WrapperOptions} from './options.ts';
import type {SignalRelay} from './signals.ts';

/** Admission's answer: go ahead (with the slot a worker holds), or end the run with this exit code. */
export type Admission =
	{readonly kind: 'admitted'; readonly lease: SlotLease | null} | {readonly kind: 'refused'; readonly exitCode: number};

function waitingNotice(checkout: string, holders: readonly SlotHolder[] | null): string {
	return holders === null
		? `waiting for a slot in ${checkout} (queued behind another waiting run)`
		: `waiting for a slot in ${checkout} (held by ${holders.map(h => h.taskId ?? `pid ${h.pid ?? 'unknown'}`).join(', ')})`;
}

/**
 * A worker takes an admission slot in its checkout, waiting for one unless `--no-wait` (then it
 * ends with exit 75, saying who holds them); a signal while waiting ends it as that signal would.
 * A reviewer only reads, so it takes none.
 */
export async function admit(options: WrapperOptions, relay: SignalRelay): Promise<Admission> {
	if (options.role !== 'worker') return {kind: 'admitted', lease: null};
	const checkout = checkoutRoot(options.cwd);
	try {
		const lease = await acquireSlot({
			checkout,
			home: options.home,
			slots: options.slots,
			wait: options.wait,
			abort: relay.abort,
			onWait: holders => options.notice(waitingNotice(checkout, holders)),
		});
		return {kind: 'admitted', lease};
	} catch (error) {
		if (error instanceof NoSlotError) {
			options.notice(error.message);
			return {kind: 'refused', exitCode: NO_SLOT_EXIT};
		}
		const received = relay.received();
		if (relay.abort.aborted && received) return {kind: 'refused', exitCode: signalExitCode(received)};
		throw error;
	}
}
