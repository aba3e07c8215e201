import type {Approver, ApproverCheck} from '../../core/effects/fold.ts';
import {processStartTime, readProcess} from '../../producers/proc-table.ts';

/**
 * Whether the process that started an effect still runs: its PID is alive with the same start time
 * (a reused PID is another process). A started effect whose approver is gone is `outcome unknown`.
 * A zombie is gone: it has exited (its locks are released, so the next approval may already hold
 * the order's) and only waits for its parent to reap it.
 */
export const isApproverAlive: ApproverCheck = approver => {
	const found = readProcess(approver.pid);
	if (found === undefined || found.state === 'Z' || found.state === 'X') return false;
	return approver.startTime === null || found.startTime === approver.startTime;
};

/** This process, as the approver recorded on the effects it starts. */
export function thisApprover(): Approver {
	return {pid: process.pid, startTime: processStartTime(process.pid)};
}
