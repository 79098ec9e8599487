-- Several kibitz nodes on one PostgreSQL. A node holds the matches it runs
-- by lease; a node that stops renewing loses them when they expire, and any
-- other node may take them over. Every time is the database's own clock in
-- ms since the epoch, so no two nodes' clocks are ever compared.
CREATE TABLE nodes (
    node_id      TEXT PRIMARY KEY,
    incarnation  TEXT NOT NULL,
    url          TEXT,
    started_ms   BIGINT NOT NULL,
    seen_ms      BIGINT NOT NULL
);

CREATE TABLE match_leases (
    match_id     TEXT PRIMARY KEY,
    node_id      TEXT NOT NULL,
    incarnation  TEXT NOT NULL,
    epoch        BIGINT NOT NULL,
    acquired_ms  BIGINT NOT NULL,
    expires_ms   BIGINT NOT NULL
);
CREATE INDEX match_leases_by_holder ON match_leases (incarnation);

-- Every change of holder, kept: no two holders may overlap.
CREATE TABLE lease_history (
    match_id              TEXT NOT NULL,
    epoch                 BIGINT NOT NULL,
    node_id               TEXT NOT NULL,
    incarnation           TEXT NOT NULL,
    acquired_ms           BIGINT NOT NULL,
    released_ms           BIGINT,
    previous_incarnation  TEXT,
    previous_expires_ms   BIGINT,
    PRIMARY KEY (match_id, epoch)
);

-- Work that one node of the club does (the consolidation job).
CREATE TABLE leader_leases (
    role         TEXT PRIMARY KEY,
    node_id      TEXT NOT NULL,
    incarnation  TEXT NOT NULL,
    expires_ms   BIGINT NOT NULL
);

-- Facts about the shared data, such as which embedding model made a Qdrant
-- server's collection (every node must know it, not only the first).
CREATE TABLE settings (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);
