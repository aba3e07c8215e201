import type {Approver, ApproverCheck} from '../../core/effects/fold.ts';
import {processStartTime} from '../../producers/proc-table.ts';

/**
 * Whether the process that started an effect still runs: its PID is alive with the same start time
 * (a reused PID is another process). A started effect whose approver is gone is `outcome unknown`.
 */
export const isApproverAlive: ApproverCheck = approver => {
	const startTime = processStartTime(approver.pid);
	return startTime !== null && (approver.startTime === null || startTime === approver.startTime);
};

/** This process, as the approver recorded on the effects it starts. */
export function thisApprover(): Approver {
	return {pid: process.pid, startTime: processStartTime(process.pid)};
}
