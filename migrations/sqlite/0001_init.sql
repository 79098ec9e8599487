-- The SQL database is the record of truth; the vector index is rebuilt from it.
-- Times are RFC 3339 UTC text with milliseconds, so they sort as text.

CREATE TABLE players (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    created_at  TEXT NOT NULL
);

CREATE TABLE matches (
    id           TEXT PRIMARY KEY,
    player_id    TEXT NOT NULL REFERENCES players(id),
    persona_id   TEXT NOT NULL,
    user_color   TEXT NOT NULL CHECK (user_color IN ('white', 'black')),
    start_fen    TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('active', 'finished')),
    result       TEXT,
    termination  TEXT,
    emotion      TEXT NOT NULL,
    draw_offer   TEXT CHECK (draw_offer IN ('user', 'persona')),
    created_at   TEXT NOT NULL,
    ended_at     TEXT
);
CREATE INDEX matches_by_player ON matches (player_id, persona_id, created_at);
CREATE INDEX matches_by_status ON matches (status);

-- win_pct_white and win_pct_delta stay NULL until the chess-mind work computes odds.
CREATE TABLE moves (
    match_id       TEXT NOT NULL REFERENCES matches(id),
    ply            INTEGER NOT NULL,
    uci            TEXT NOT NULL,
    san            TEXT NOT NULL,
    side           TEXT NOT NULL CHECK (side IN ('user', 'persona')),
    fen_after      TEXT NOT NULL,
    win_pct_white  REAL,
    win_pct_delta  REAL,
    created_at     TEXT NOT NULL,
    PRIMARY KEY (match_id, ply)
);

CREATE TABLE messages (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id    TEXT NOT NULL REFERENCES matches(id),
    sender      TEXT NOT NULL CHECK (sender IN ('user', 'persona')),
    content     TEXT NOT NULL,
    tone        TEXT,
    created_at  TEXT NOT NULL
);
CREATE INDEX messages_by_match ON messages (match_id, id);

CREATE TABLE emotions (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id    TEXT NOT NULL REFERENCES matches(id),
    emotion     TEXT NOT NULL,
    reason      TEXT,
    created_at  TEXT NOT NULL
);

-- player_id is NULL for persona lore (shared, read-only).
CREATE TABLE memories (
    id                TEXT PRIMARY KEY,
    player_id         TEXT REFERENCES players(id),
    persona_id        TEXT NOT NULL,
    memory_type       TEXT NOT NULL CHECK (memory_type IN ('player_behavior', 'player_observation',
                        'game_context', 'personal_note', 'streak', 'pattern', 'emotional')),
    content           TEXT NOT NULL,
    related_match_id  TEXT REFERENCES matches(id),
    created_by        TEXT NOT NULL CHECK (created_by IN ('main_agent', 'subconscious', 'persona_lore')),
    metadata          TEXT NOT NULL DEFAULT '{}',
    created_at        TEXT NOT NULL
);
CREATE INDEX memories_by_owner ON memories (player_id, persona_id, created_at);

CREATE TABLE trigger_log (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id      TEXT NOT NULL REFERENCES matches(id),
    trigger       TEXT NOT NULL,
    fired_at      TEXT NOT NULL,
    recalled_ids  TEXT NOT NULL DEFAULT '[]',
    actions       TEXT NOT NULL DEFAULT '[]',
    duration_us   INTEGER NOT NULL
);
CREATE INDEX trigger_log_by_match ON trigger_log (match_id, id);

-- Everything pushed to a match's subscribers, numbered, so a client that
-- reconnects asks for what came after the last number it saw.
CREATE TABLE events (
    match_id    TEXT NOT NULL REFERENCES matches(id),
    seq         INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    payload     TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    PRIMARY KEY (match_id, seq)
);
