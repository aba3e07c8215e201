import {NotAPersonError} from '../actor.ts';

/**
 * A yes refused under `approvals: passkey` because it is not passkey-signed (docs/passkeys.md):
 * a kind of NotAPersonError, so every door that shows the person gate's refusal (a command's one
 * line and exit 77, the board's status line, a fleet request's answer) shows this one too.
 */
export class PasskeyRequiredError extends NotAPersonError {
	constructor(message: string) {
		super(message, {kind: 'agent', reason: 'the answer is not passkey-signed (approvals: passkey)', agent: null});
		this.name = 'PasskeyRequiredError';
	}
}
