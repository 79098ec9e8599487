-- Ratings (Glicko-2). A match keeps the strength the persona played at
-- (its card's Elo, or the strength it adapted to), whether it adapted, and
-- whether its moves came from its calibrated engine (not a language
-- model): only a calibrated, unadapted game is rated. Matches from before
-- this have a NULL strength and are rated at their persona's card Elo.
ALTER TABLE matches ADD COLUMN persona_elo INTEGER;
ALTER TABLE matches ADD COLUMN adapted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN calibrated INTEGER NOT NULL DEFAULT 1;

-- A player's rating after each rated game, in the order played; the last
-- row is the rating now. Derived from the matches: `kibitz ratings
-- rebuild` makes it anew.
CREATE TABLE rating_history (
    match_id        TEXT PRIMARY KEY REFERENCES matches(id),
    player_id       TEXT NOT NULL REFERENCES players(id),
    persona_id      TEXT NOT NULL,
    persona_rating  REAL NOT NULL,
    score           REAL NOT NULL,
    rating          REAL NOT NULL,
    deviation       REAL NOT NULL,
    volatility      REAL NOT NULL,
    played_at       TEXT NOT NULL
);
CREATE INDEX rating_history_by_player ON rating_history (player_id, played_at, match_id);
