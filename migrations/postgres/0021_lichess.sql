-- Lichess: an opponent met there is a player keyed by their Lichess user id
-- (lowercase, as Lichess gives it), with the title Lichess shows; each game a
-- persona plays there is one match, with what the driver has already done
-- in it, so a reconnect or a restart repeats nothing: the last of the
-- match's events posted to the game (its seq), and how many of the
-- opponent's chat lines were heard.
ALTER TABLE players ADD COLUMN lichess_id TEXT;
ALTER TABLE players ADD COLUMN lichess_title TEXT;
CREATE UNIQUE INDEX players_by_lichess_id ON players (lichess_id);

CREATE TABLE lichess_games (
    game_id       TEXT PRIMARY KEY,
    match_id      TEXT NOT NULL UNIQUE REFERENCES matches(id),
    account       TEXT NOT NULL,
    posted_seq    BIGINT NOT NULL DEFAULT 0,
    heard_lines   BIGINT NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL
);
