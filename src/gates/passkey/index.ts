// The passkey API (docs/passkeys.md, "The API"): what a page that takes answers calls. Registration
// (registrationOptions → navigator.credentials.create → verifyRegistration), an answer
// (answerOptions → navigator.credentials.get → verifyAnswer → a gate function given the proof,
// which records it with recordPasskeyAnswer in ./record.ts), the policy, and the later check from the ledger alone.

export {answerOptions, verifyAnswer, ANSWER_TTL_MS, type AnswerRequest, type PasskeyProof} from './answer.ts';
export {
	checkPasskeyName,
	enrollApproval,
	registrationOptions,
	verifyRegistration,
	type PendingRegistration,
} from './registration.ts';
export {adoptConfiguredPolicy, approvalsPolicy, POLICY_OFF_ANSWER, turnPolicyOff} from './policy.ts';
export {localRelyingParty, PasskeyError} from './relying-party.ts';
export {verifyRecordedAnswer} from './verify-recorded.ts';
export {itemLink, itemPath} from './item-link.ts';
