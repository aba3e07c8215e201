import {claudeTelemetryEnv, headersWithKey} from '../../core/otel/claude-telemetry.ts';
import {readJsonFile, writeAtomically} from './hooks-install.ts';

/**
 * `hooks install --claude --otel URL`: Claude Code's telemetry settings in its settings file's
 * `env` (Claude reads them there as from its environment: docs/otel.md), so every session, wrapped
 * or not, sends its requests and their exact cost to `controlroom otel receive`, with the receiver's
 * key (`key`, the ledger's: docs/otel.md) in its headers. Other `env` keys are kept; ours are set to
 * what they must be.
 */
export function installTelemetrySettings(
	file: string,
	endpoint: string,
	key: string,
): {readonly file: string; readonly changed: readonly string[]} {
	const settings = readJsonFile(file) ?? {};
	const current = settings['env'];
	const env: Record<string, unknown> =
		current !== null && typeof current === 'object' && !Array.isArray(current) ? {...current} : {};
	const changed: string[] = [];
	for (const [name, given] of Object.entries(claudeTelemetryEnv(endpoint, key))) {
		// Headers the person put there are kept: the receiver's key joins them.
		const current = env[name];
		const value =
			name === 'OTEL_EXPORTER_OTLP_HEADERS' ? headersWithKey(typeof current === 'string' ? current : undefined, key) : given;
		if (current === value) continue;
		env[name] = value;
		changed.push(name);
	}
	if (changed.length > 0) writeAtomically(file, `${JSON.stringify({...settings, env}, null, 2)}\n`);
	return {file, changed};
}
