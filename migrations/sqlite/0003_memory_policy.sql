-- Write policy and decay: a reinforced memory grows stronger; strength decays
-- with time (down to a floor for pinned and important memories).
ALTER TABLE memories ADD COLUMN strength REAL NOT NULL DEFAULT 1.0;
-- Last time the memory was created or reinforced.
ALTER TABLE memories ADD COLUMN last_seen_at TEXT;
-- Strength is stored as of this time; decay since then is computed.
ALTER TABLE memories ADD COLUMN decayed_at TEXT;
-- Every later source that said the same thing: JSON [{match_id, created_by, content, at}].
ALTER TABLE memories ADD COLUMN reinforcements TEXT NOT NULL DEFAULT '[]';

-- Where in a game the memory was made: Zobrist hash (16 hex) and opening.
ALTER TABLE memories ADD COLUMN position_key TEXT;
ALTER TABLE memories ADD COLUMN eco TEXT;
ALTER TABLE memories ADD COLUMN opening TEXT;

-- What each consolidation run did: merges, supersessions, decay.
CREATE TABLE consolidation_log (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at   TEXT NOT NULL,
    finished_at  TEXT NOT NULL,
    -- 'schedule', 'after_match' or 'manual'
    reason       TEXT NOT NULL,
    -- The player it was limited to; NULL for everyone.
    player_id    TEXT REFERENCES players(id),
    merged       INTEGER NOT NULL,
    superseded   INTEGER NOT NULL,
    decayed      INTEGER NOT NULL,
    -- JSON list of {action, kept, retired, score}
    details      TEXT NOT NULL DEFAULT '[]'
);
