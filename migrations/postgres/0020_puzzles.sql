-- A player's mistakes, kept as puzzles for that player and persona: the
-- position before the move, what was played, the engine's better move and
-- how much better it was; how often it was solved or failed, and whether
-- it is open (comes back), retired (solved twice) or dismissed by the player.
CREATE TABLE puzzles (
    id             TEXT PRIMARY KEY,
    player_id      TEXT NOT NULL REFERENCES players(id),
    persona_id     TEXT NOT NULL,
    match_id       TEXT NOT NULL REFERENCES matches(id),
    ply            BIGINT NOT NULL,
    fen            TEXT NOT NULL,
    played_san     TEXT NOT NULL,
    class          TEXT NOT NULL CHECK (class IN ('mistake', 'blunder')),
    solution_uci   TEXT NOT NULL,
    solution_san   TEXT NOT NULL,
    gain           DOUBLE PRECISION NOT NULL,
    solved         BIGINT NOT NULL DEFAULT 0,
    failed         BIGINT NOT NULL DEFAULT 0,
    status         TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'retired', 'dismissed')),
    created_at     TEXT NOT NULL,
    last_tried_at  TEXT,
    UNIQUE (match_id, ply)
);
CREATE INDEX puzzles_by_player ON puzzles (player_id, persona_id, status);
