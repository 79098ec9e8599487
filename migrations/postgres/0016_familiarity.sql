-- How well a persona knows a player: one row per game they finished
-- together (a game left unfinished too), with what the record tells of it
-- (finished, hard-fought, how many lines told something of the player,
-- their courtesy) and the familiarity points after it, faded by the time
-- since the game before. Derived from matches and messages, so it can be
-- made anew; the stage is read from the points with the persona's
-- thresholds, which its file may change.
CREATE TABLE familiarity_history (
    match_id     TEXT PRIMARY KEY REFERENCES matches(id),
    player_id    TEXT NOT NULL REFERENCES players(id),
    persona_id   TEXT NOT NULL,
    played_at    TEXT NOT NULL,
    finished     INTEGER NOT NULL,
    hard_fought  INTEGER NOT NULL,
    shared       INTEGER NOT NULL,
    courteous    INTEGER NOT NULL,
    rude         INTEGER NOT NULL,
    points       DOUBLE PRECISION NOT NULL
);
CREATE INDEX familiarity_by_pair ON familiarity_history (player_id, persona_id, played_at, match_id);
