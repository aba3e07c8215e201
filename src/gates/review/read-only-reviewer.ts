import {snapshotCheckout} from './checkout-snapshot.ts';
import {runReviewer, type ReviewerResult, type ReviewerRun} from './run-reviewer.ts';
import {changedPaths, workTreeState, type WorkTreeState} from './work-tree-state.ts';

/** At most this many changed paths are named in the verdict; the rest are counted. */
const NAMED_PATHS = 10;

function changesIn(before: WorkTreeState | null, folder: string): string[] {
	const after = before === null ? null : workTreeState(folder);
	return before === null || after === null ? [] : changedPaths(before, after);
}

function named(paths: readonly string[]): string {
	const shown = paths.slice(0, NAMED_PATHS).join(', ');
	return paths.length > NAMED_PATHS ? `${shown} and ${paths.length - NAMED_PATHS} more` : shown;
}

/**
 * Runs a review-gate reviewer so that it cannot change the work (docs/review.md, "Read-only"): in a
 * snapshot of the checkout (a separate work tree with the uncommitted changes under review), with
 * the reviewed checkout and the snapshot fingerprinted before and after. A reviewer that changed
 * either (a file written, a commit made) gets INVALID naming the changed paths, whatever it
 * answered. Outside a git work tree it runs in the folder itself, unchecked (as plan reviewers).
 */
export async function readOnlyReviewer(checkout: string, runOf: (cwd: string) => ReviewerRun): Promise<ReviewerResult> {
	const snapshot = snapshotCheckout(checkout);
	try {
		const checkoutBefore = workTreeState(checkout);
		const snapshotBefore = snapshot === null ? null : workTreeState(snapshot.cwd);
		const result = await runReviewer(runOf(snapshot?.cwd ?? checkout));
		const inCheckout = changesIn(checkoutBefore, checkout);
		const inSnapshot = snapshot === null ? [] : changesIn(snapshotBefore, snapshot.cwd);
		const changed = [...new Set([...inCheckout, ...inSnapshot])].sort();
		if (changed.length === 0) return result;
		const where = inCheckout.length > 0 ? ` (in the reviewed checkout: ${named(inCheckout)})` : '';
		return {
			...result,
			verdict: {kind: 'INVALID', reason: `the reviewer changed files it was to review: ${named(changed)}${where}`},
		};
	} finally {
		snapshot?.remove();
	}
}
