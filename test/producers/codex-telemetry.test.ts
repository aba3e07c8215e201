import {readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {installCodexTelemetry} from '../../src/producers/agent-hook/codex-telemetry.ts';
import {scratchDir} from '../helpers/cli.ts';

const KEY = 'a'.repeat(64);

describe("hooks install --codex --otel: Codex's [otel] table", () => {
	it('adds the table with the receiver’s key after what is there, changes nothing the second time, and follows a new URL in place', () => {
		const file = join(scratchDir('cr-codex-otel-'), 'config.toml');
		writeFileSync(file, 'model = "gpt-5.5"\n\n[model_providers.fake]\nname = "fake"\n');
		expect(installCodexTelemetry(file, 'http://127.0.0.1:4318', KEY).state).toBe('changed');
		const once = readFileSync(file, 'utf8');
		expect(once).toBe(
			'model = "gpt-5.5"\n\n[model_providers.fake]\nname = "fake"\n\n' +
				'# added by `controlroom hooks install --codex --otel`: Codex telemetry to controlroom (docs/otel.md)\n' +
				'[otel]\n' +
				`exporter = { otlp-http = { endpoint = "http://127.0.0.1:4318/v1/logs", protocol = "json", headers = { "x-controlroom-otel" = "${KEY}" } } }\n`,
		);
		expect(installCodexTelemetry(file, 'http://127.0.0.1:4318', KEY).state).toBe('unchanged');
		writeFileSync(file, `${once}\n[profiles.x]\nmodel = "o"\n`);
		expect(installCodexTelemetry(file, 'http://127.0.0.1:9999', KEY).state).toBe('changed');
		const moved = readFileSync(file, 'utf8');
		expect(moved).toContain('endpoint = "http://127.0.0.1:9999/v1/logs"');
		expect(moved).not.toContain('4318');
		expect(moved.match(/\[otel\]/g)).toHaveLength(1);
		expect(moved).toContain('[profiles.x]\nmodel = "o"\n');
	});

	it('leaves an [otel] table of the person’s own as it is', () => {
		const file = join(scratchDir('cr-codex-otel-'), 'config.toml');
		const theirs = '[otel]\nexporter = "none"\n';
		writeFileSync(file, theirs);
		expect(installCodexTelemetry(file, 'http://127.0.0.1:4318', KEY).state).toBe('theirs');
		expect(readFileSync(file, 'utf8')).toBe(theirs);
	});
});
