/**
 * A refusal or failure of a gate that the person can act on: one line, exit 1. Its own file, so a
 * hook that only asks a question (the hold and permission hooks, bundled small: docs/decisions.md)
 * does not load the review gate's contract and YAML machinery to know the class.
 */
export class ReviewGateError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'ReviewGateError';
	}
}
