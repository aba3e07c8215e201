import {FleetError, redactUrl, type FleetClient} from './connection.ts';

/**
 * The fleet ledger's schema on PostgreSQL, versioned like the SQLite one (src/ledger/migrations.ts):
 * an append-only list, applied in one transaction, a newer schema refused. Everything lives in its
 * own schema, `controlroom`, so it can share a database with anything else.
 */
type FleetMigration = {readonly version: number; readonly sql: string};

const FLEET_MIGRATIONS: readonly FleetMigration[] = [
	{
		version: 1,
		sql: `
			CREATE TABLE controlroom.hosts (
				id text PRIMARY KEY,
				name text NOT NULL,
				first_synced_at timestamptz NOT NULL DEFAULT now(),
				last_synced_at timestamptz NOT NULL DEFAULT now(),
				last_seq bigint NOT NULL DEFAULT 0
			);

			-- Every host's events, keyed by (host, seq): shipping the same event twice adds nothing.
			-- fleet_seq numbers them in commit order (shipping takes one lock), so a board tails the
			-- whole fleet by fleet_seq > last.
			CREATE TABLE controlroom.events (
				host_id text NOT NULL REFERENCES controlroom.hosts (id),
				seq bigint NOT NULL,
				fleet_seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
				task_id text NOT NULL,
				type text NOT NULL,
				at bigint NOT NULL,
				source text NOT NULL,
				data text NOT NULL,
				dedup_key text,
				received_at timestamptz NOT NULL DEFAULT now(),
				PRIMARY KEY (host_id, seq)
			);
			CREATE INDEX events_by_task ON controlroom.events (host_id, task_id, seq);
			CREATE INDEX events_by_type ON controlroom.events (type, host_id, seq);
			CREATE INDEX events_request_outcomes ON controlroom.events (host_id, ((data::jsonb ->> 'requestId')))
				WHERE type = 'fleet.request_handled';

			-- The projection as each host computed it (the same applyEvent), shipped with its events.
			CREATE TABLE controlroom.tasks (
				host_id text NOT NULL REFERENCES controlroom.hosts (id),
				id text NOT NULL,
				status text NOT NULL,
				source text NOT NULL,
				title text,
				cwd text,
				parent_id text,
				session_id text,
				pid bigint,
				exit_code bigint,
				created_at bigint NOT NULL,
				last_event_at bigint NOT NULL,
				ended_at bigint,
				last_seq bigint NOT NULL,
				doc text NOT NULL,
				PRIMARY KEY (host_id, id)
			);
			CREATE INDEX tasks_by_ended ON controlroom.tasks (ended_at);
			CREATE INDEX tasks_open ON controlroom.tasks (host_id) WHERE ended_at IS NULL;
			CREATE INDEX tasks_by_id ON controlroom.tasks (id text_pattern_ops);
			CREATE INDEX tasks_by_session ON controlroom.tasks (session_id);
			CREATE INDEX tasks_by_status ON controlroom.tasks (status);

			-- Actions asked for from a fleet board, for the task's host to carry out (docs/fleet.md).
			CREATE TABLE controlroom.requests (
				id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
				host_id text NOT NULL REFERENCES controlroom.hosts (id),
				task_id text NOT NULL,
				verb text NOT NULL,
				args text NOT NULL DEFAULT '{}',
				requested_by text NOT NULL,
				requested_at timestamptz NOT NULL DEFAULT now()
			);
			CREATE INDEX requests_by_host ON controlroom.requests (host_id, id);

			-- The server itself refuses to change or remove what was shipped or asked for.
			CREATE FUNCTION controlroom.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN
				RAISE EXCEPTION 'the fleet ledger is append-only (% on %)', TG_OP, TG_TABLE_NAME;
			END $$;
			CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON controlroom.events
				FOR EACH ROW EXECUTE FUNCTION controlroom.refuse_change();
			CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON controlroom.events
				FOR EACH STATEMENT EXECUTE FUNCTION controlroom.refuse_change();
			CREATE TRIGGER requests_append_only BEFORE UPDATE OR DELETE ON controlroom.requests
				FOR EACH ROW EXECUTE FUNCTION controlroom.refuse_change();
			CREATE TRIGGER requests_no_truncate BEFORE TRUNCATE ON controlroom.requests
				FOR EACH STATEMENT EXECUTE FUNCTION controlroom.refuse_change();

			-- Whoever listens (boards, each host's sync) hears of new events and requests at commit.
			CREATE FUNCTION controlroom.announce() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN
				PERFORM pg_notify('controlroom_fleet', TG_ARGV[0]);
				RETURN NULL;
			END $$;
			CREATE TRIGGER events_announce AFTER INSERT ON controlroom.events
				FOR EACH STATEMENT EXECUTE FUNCTION controlroom.announce('events');
			CREATE TRIGGER requests_announce AFTER INSERT ON controlroom.requests
				FOR EACH STATEMENT EXECUTE FUNCTION controlroom.announce('requests');
		`,
	},
	{
		// What a snapshot reads, read through indexes rather than scans (docs/fleet.md, "Figures").
		version: 2,
		sql: `
			-- Needs: an agent's need is found through its open task (tasks_open, then this index by
			-- task and time); a need raised by hand through the second, which holds only those.
			-- 'claude' and 'codex' are the sources whose need their own later activity answers
			-- (src/core/human-queue.ts); the fleet reader's queries name the same list.
			CREATE INDEX events_needs_by_task ON controlroom.events (host_id, task_id, at)
				WHERE type = 'need.raised';
			CREATE INDEX events_manual_needs ON controlroom.events (host_id, seq)
				WHERE type = 'need.raised' AND source NOT IN ('claude', 'codex');

			-- Tasks per host and status, kept by the server as task rows are written, so the
			-- counts are a few rows a host rather than a scan of every task of every host.
			CREATE TABLE controlroom.status_counts (
				host_id text NOT NULL REFERENCES controlroom.hosts (id),
				status text NOT NULL,
				n bigint NOT NULL,
				PRIMARY KEY (host_id, status)
			);
			INSERT INTO controlroom.status_counts (host_id, status, n)
				SELECT host_id, status, COUNT(*) FROM controlroom.tasks GROUP BY host_id, status;
			CREATE FUNCTION controlroom.count_status() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN
				IF TG_OP IN ('UPDATE', 'DELETE') THEN
					UPDATE controlroom.status_counts SET n = n - 1 WHERE host_id = OLD.host_id AND status = OLD.status;
				END IF;
				IF TG_OP IN ('INSERT', 'UPDATE') THEN
					INSERT INTO controlroom.status_counts AS c (host_id, status, n) VALUES (NEW.host_id, NEW.status, 1)
						ON CONFLICT (host_id, status) DO UPDATE SET n = c.n + 1;
				END IF;
				RETURN NULL;
			END $$;
			CREATE TRIGGER tasks_count_insert AFTER INSERT OR DELETE ON controlroom.tasks
				FOR EACH ROW EXECUTE FUNCTION controlroom.count_status();
			CREATE TRIGGER tasks_count_update AFTER UPDATE OF status ON controlroom.tasks
				FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION controlroom.count_status();
		`,
	},
	{
		// The fleet's rejects: a row PostgreSQL refused (docs/fleet.md, "What PostgreSQL cannot hold").
		// The rest of its batch is written; the row is kept here, once, with the server's reason.
		version: 3,
		sql: `
			CREATE TABLE controlroom.rejects (
				host_id text NOT NULL REFERENCES controlroom.hosts (id),
				kind text NOT NULL CHECK (kind IN ('event', 'task')),
				seq bigint NOT NULL,
				task_id text NOT NULL,
				reason text NOT NULL,
				sqlstate text,
				at timestamptz NOT NULL DEFAULT now(),
				PRIMARY KEY (host_id, kind, seq, task_id)
			);
			CREATE TRIGGER rejects_append_only BEFORE UPDATE OR DELETE ON controlroom.rejects
				FOR EACH ROW EXECUTE FUNCTION controlroom.refuse_change();
		`,
	},
	{
		// The flight recorder (docs/fleet.md, "The chain and anchors"): each event comes with its
		// arrival in the host's ledger and its link in the host's hash chain, as the host wrote them;
		// and each sync writes the host's chain head here from time to time. Events shipped before
		// have neither (null). Anchors are append-only like events: with the host's role allowed to
		// insert and read only (docs/fleet.md), what a host's user could rewrite on the host stays
		// as it was here.
		version: 4,
		sql: `
			ALTER TABLE controlroom.events ADD COLUMN arrived_at bigint, ADD COLUMN hash text;
			CREATE TABLE controlroom.anchors (
				host_id text NOT NULL REFERENCES controlroom.hosts (id),
				seq bigint NOT NULL,
				hash text NOT NULL,
				anchored_at timestamptz NOT NULL DEFAULT now(),
				PRIMARY KEY (host_id, seq)
			);
			CREATE TRIGGER anchors_append_only BEFORE UPDATE OR DELETE ON controlroom.anchors
				FOR EACH ROW EXECUTE FUNCTION controlroom.refuse_change();
			CREATE TRIGGER anchors_no_truncate BEFORE TRUNCATE ON controlroom.anchors
				FOR EACH STATEMENT EXECUTE FUNCTION controlroom.refuse_change();
		`,
	},
	{
		// Contracts written on one host for any host to take (docs/fleet.md, "Contracts"): sync ships
		// each host's events up only, so the contracts and their claims are shared here. A claim is
		// exclusive across hosts by the unique index on the held one.
		version: 5,
		sql: `
			CREATE TABLE controlroom.contracts (
				id text PRIMARY KEY,
				host_id text NOT NULL REFERENCES controlroom.hosts (id),
				drafted text NOT NULL,
				text text NOT NULL,
				written_at bigint NOT NULL,
				readied_by text,
				readied_at bigint,
				published_at timestamptz NOT NULL DEFAULT now()
			);
			CREATE INDEX contracts_ready ON controlroom.contracts (written_at) WHERE readied_at IS NOT NULL;
			CREATE TABLE controlroom.contract_claims (
				id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
				contract_id text NOT NULL REFERENCES controlroom.contracts (id),
				host_id text NOT NULL REFERENCES controlroom.hosts (id),
				holder text NOT NULL,
				claimed_at timestamptz NOT NULL DEFAULT now(),
				ended_at timestamptz,
				outcome text
			);
			CREATE UNIQUE INDEX contract_claims_held ON controlroom.contract_claims (contract_id) WHERE ended_at IS NULL;
			CREATE INDEX contract_claims_by_contract ON controlroom.contract_claims (contract_id, id);
		`,
	},
];

/** The newest fleet schema version this build knows. */
export const FLEET_SCHEMA_VERSION = FLEET_MIGRATIONS.at(-1)?.version ?? 0;

/** The channel new events and requests are announced on (LISTEN/NOTIFY). */
export const FLEET_CHANNEL = 'controlroom_fleet';

/** Advisory lock keys (two-int form): the first names controlroom, the second what is locked. */
export const LOCK_CLASS = 0x43_52_66_6c; // "CRfl"
export const MIGRATE_LOCK = 1;
export const ORDER_LOCK = 2;
/** Host locks use their own first key, the second is a hash of the host id. */
export const HOST_LOCK_CLASS = LOCK_CLASS + 1;

/** A fleet schema written by a newer controlroom: refused rather than misread. */
export class FleetFromFutureError extends FleetError {
	constructor(found: number) {
		super(
			`fleet schema version ${found} is newer than this controlroom understands (${FLEET_SCHEMA_VERSION}); upgrade controlroom`,
		);
	}
}

async function currentVersion(client: FleetClient): Promise<number | null> {
	const exists = await client.query<{present: boolean}>(`SELECT to_regclass('controlroom.fleet_schema') IS NOT NULL AS present`);
	if (!exists.rows[0]?.present) return null;
	const row = await client.query<{version: number}>('SELECT version FROM controlroom.fleet_schema');
	return row.rows[0]?.version ?? 0;
}

/**
 * Brings the schema up to date (sync does this before shipping): every pending migration in one
 * transaction, under an advisory lock so two hosts' first syncs do not both create it.
 */
export async function migrateFleet(client: FleetClient): Promise<void> {
	const found = await currentVersion(client);
	if (found !== null && found > FLEET_SCHEMA_VERSION) throw new FleetFromFutureError(found);
	if (found === FLEET_SCHEMA_VERSION) return;
	await client.query('BEGIN');
	try {
		await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_CLASS, MIGRATE_LOCK]);
		await client.query('CREATE SCHEMA IF NOT EXISTS controlroom');
		await client.query(
			`CREATE TABLE IF NOT EXISTS controlroom.fleet_schema (
				only_row int PRIMARY KEY CHECK (only_row = 1),
				version int NOT NULL
			)`,
		);
		await client.query('INSERT INTO controlroom.fleet_schema VALUES (1, 0) ON CONFLICT DO NOTHING');
		// Re-read under the lock: another host may have migrated meanwhile.
		const start = (await currentVersion(client)) ?? 0;
		if (start > FLEET_SCHEMA_VERSION) throw new FleetFromFutureError(start);
		for (const migration of FLEET_MIGRATIONS) {
			if (migration.version > start) await client.query(migration.sql);
		}
		await client.query('UPDATE controlroom.fleet_schema SET version = $1', [FLEET_SCHEMA_VERSION]);
		await client.query('COMMIT');
	} catch (error) {
		await client.query('ROLLBACK').catch(() => undefined);
		throw error;
	}
}

/** For reading commands: the schema must be there and not newer; they never create or migrate it. */
export async function checkFleetSchema(client: FleetClient, url: string): Promise<void> {
	const found = await currentVersion(client);
	if (found === null || found === 0)
		throw new FleetError(`no fleet ledger at ${redactUrl(url)} (run \`controlroom sync --to URL\` on a host first)`);
	if (found > FLEET_SCHEMA_VERSION) throw new FleetFromFutureError(found);
	if (found < FLEET_SCHEMA_VERSION)
		throw new FleetError(
			`fleet schema version ${found} at ${redactUrl(url)} is older than this controlroom's (${FLEET_SCHEMA_VERSION}); run \`controlroom sync --to URL\` once to upgrade it`,
		);
}
