import {parsePolicy, type ReceiverPolicy} from '../core/contract/policy.ts';
import {EXPECTED, settingFromText} from '../core/settings.ts';
import {commandSettings} from './config-file.ts';
import {CliError, USAGE_EXIT} from './errors.ts';

/**
 * The receiver's policy of a command that checks a contract (docs/contracts.md, "The receiver's
 * policy"): `--require LIST`, else the config file's `contractRequire`, else nothing required.
 */
export function receiverPolicy(flag: string | undefined): ReceiverPolicy {
	const fromFlag = flag === undefined ? undefined : settingFromText('requirements', flag);
	if (fromFlag === null) throw new CliError(`--require: expected ${EXPECTED.requirements}, got '${flag ?? ''}'`, USAGE_EXIT);
	const {contractRequire} = commandSettings({contractRequire: fromFlag});
	const parsed = parsePolicy(contractRequire);
	if ('problem' in parsed) throw new CliError(`--require: ${parsed.problem}`, USAGE_EXIT);
	return parsed.policy;
}
