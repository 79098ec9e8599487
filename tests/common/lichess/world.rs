//! The fake Lichess's state: accounts, challenges, games with their clocks
//! and chat, the open streams, and what was asked of it.

use std::collections::HashMap;
use std::time::Instant;

use serde_json::{Value, json};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Position};
use tokio::sync::mpsc::UnboundedSender;

use super::GameView;
use super::spec::Spec;

#[derive(Debug, Clone)]
pub struct User {
    pub id: String,
    pub name: String,
    pub title: Option<String>,
    pub rating: u32,
}

/// One request the fake answered.
#[derive(Debug, Clone)]
pub struct Logged {
    pub at: Instant,
    pub method: String,
    pub path: String,
    pub form: Vec<(String, String)>,
    pub status: u16,
}

pub struct Game {
    pub id: String,
    pub white: User,
    pub black: User,
    pub pos: Chess,
    pub moves: Vec<String>,
    pub status: &'static str,
    pub winner: Option<&'static str>,
    pub rated: bool,
    pub initial_ms: i64,
    pub increment_ms: i64,
    pub wtime: i64,
    pub btime: i64,
    pub turn_started: Instant,
    pub wdraw: bool,
    pub bdraw: bool,
    pub wtakeback: bool,
    pub btakeback: bool,
    pub opponent_gone: bool,
    pub chat: Vec<(String, String, String)>,
    pub streams: Vec<UnboundedSender<String>>,
    pub challenge: String,
}

pub struct World {
    pub spec: Spec,
    pub users: HashMap<String, User>,
    /// Bearer token -> user id.
    pub tokens: HashMap<String, String>,
    pub event_streams: Vec<(String, UnboundedSender<String>)>,
    /// id -> (challenge JSON, status, decline reason).
    pub challenges: HashMap<String, (Value, String, Option<String>)>,
    pub games: HashMap<String, Game>,
    pub log: Vec<Logged>,
    pub violations: Vec<String>,
    pub rate_limits: Vec<(String, u32)>,
    pub signing_in: Option<String>,
    /// OAuth codes: code -> (user id, code challenge, redirect uri).
    pub codes: HashMap<String, (String, String, String)>,
    next_id: u64,
}

impl World {
    pub fn new(spec: Spec) -> World {
        World {
            spec,
            users: HashMap::new(),
            tokens: HashMap::new(),
            event_streams: Vec::new(),
            challenges: HashMap::new(),
            games: HashMap::new(),
            log: Vec::new(),
            violations: Vec::new(),
            rate_limits: Vec::new(),
            signing_in: None,
            codes: HashMap::new(),
            next_id: 0,
        }
    }

    pub fn new_id(&mut self) -> String {
        self.next_id += 1;
        format!("G{:07}", self.next_id)
    }

    pub fn add_user(&mut self, token: Option<&str>, id: &str, name: &str, title: Option<&str>, rating: u32) {
        let user = User {
            id: id.into(),
            name: name.into(),
            title: title.map(Into::into),
            rating,
        };
        self.users.insert(id.into(), user);
        if let Some(token) = token {
            self.tokens.insert(token.into(), id.into());
        }
    }

    /// A stream line, checked against the specification's schema for the
    /// stream's path, then sent to whoever listens.
    fn checked_line(&mut self, stream_path: &str, line: &Value) -> String {
        if let Err(e) = self
            .spec
            .check_response("GET", stream_path, 200, "application/x-ndjson", line)
        {
            self.violations.push(e);
        }
        format!("{line}\n")
    }

    pub fn push_event(&mut self, user: &str, event: Value) {
        let line = self.checked_line("/api/stream/event", &event);
        self.event_streams
            .retain(|(u, tx)| u != user || tx.send(line.clone()).is_ok());
    }

    pub fn push_game(&mut self, id: &str, event: Value) {
        let line = self.checked_line(&format!("/api/bot/game/stream/{id}"), &event);
        if let Some(game) = self.games.get_mut(id) {
            game.streams.retain(|tx| tx.send(line.clone()).is_ok());
        }
    }

    pub fn challenge(
        &mut self,
        from: &str,
        to: &str,
        time_control: Value,
        rated: bool,
        variant: &str,
        color: &str,
    ) -> String {
        let id = format!("C{}", self.new_id());
        // `title` is left out for a player without one (the schema has no null).
        let user = |u: &User| {
            let mut user = json!({"id": u.id, "name": u.name, "rating": u.rating, "online": true});
            if let Some(t) = &u.title {
                user["title"] = json!(t);
            }
            user
        };
        let (challenger, dest) = (user(&self.users[from]), user(&self.users[to]));
        let speed = if time_control["type"] == "clock" {
            "rapid"
        } else {
            "correspondence"
        };
        let challenge = json!({
            "id": id, "url": format!("https://lichess.org/{id}"), "status": "created",
            "challenger": challenger, "destUser": dest,
            "variant": {"key": variant, "name": variant, "short": "Std"},
            "rated": rated, "speed": speed, "timeControl": time_control,
            "color": color, "finalColor": if color == "black" { "black" } else { "white" },
            "perf": {"icon": "#", "name": "Rapid"}, "direction": "in",
        });
        self.challenges
            .insert(id.clone(), (challenge.clone(), "created".into(), None));
        let event = json!({"type": "challenge", "challenge": challenge, "compat": {"bot": true, "board": true}});
        self.push_event(to, event);
        id
    }

    pub fn challenge_status(&self, id: &str) -> (String, Option<String>) {
        let (_, status, reason) = &self.challenges[id];
        (status.clone(), reason.clone())
    }

    pub fn game_of(&self, challenge: &str) -> Option<String> {
        self.games
            .values()
            .find(|g| g.challenge == challenge)
            .map(|g| g.id.clone())
    }

    /// The challenged bot accepted: a game begins, the challenger with the
    /// colour asked (white when random).
    pub fn accept(&mut self, challenge: &str) -> bool {
        let Some((c, status, _)) = self.challenges.get_mut(challenge) else {
            return false;
        };
        *status = "accepted".into();
        let c = c.clone();
        let challenger = self.users[c["challenger"]["id"].as_str().unwrap()].clone();
        let bot = self.users[c["destUser"]["id"].as_str().unwrap()].clone();
        let (white, black) = match c["color"].as_str() {
            Some("black") => (bot, challenger),
            _ => (challenger, bot),
        };
        let tc = &c["timeControl"];
        let initial_ms = tc["limit"].as_i64().unwrap_or(0) * 1000;
        let increment_ms = tc["increment"].as_i64().unwrap_or(0) * 1000;
        // As on Lichess, the game has its challenge's id.
        let id = challenge.to_string();
        let game = Game {
            id: id.clone(),
            white,
            black,
            pos: Chess::default(),
            moves: Vec::new(),
            status: "started",
            winner: None,
            rated: c["rated"].as_bool().unwrap_or(false),
            initial_ms,
            increment_ms,
            wtime: initial_ms,
            btime: initial_ms,
            turn_started: Instant::now(),
            wdraw: false,
            bdraw: false,
            wtakeback: false,
            btakeback: false,
            opponent_gone: false,
            chat: Vec::new(),
            streams: Vec::new(),
            challenge: challenge.into(),
        };
        let players = [game.white.id.clone(), game.black.id.clone()];
        self.games.insert(id.clone(), game);
        for user in players {
            let info = self.game_info(&id, &user);
            self.push_event(&user, json!({"type": "gameStart", "game": info}));
        }
        true
    }

    pub fn decline(&mut self, challenge: &str, reason: Option<String>) -> bool {
        let Some((c, status, why)) = self.challenges.get_mut(challenge) else {
            return false;
        };
        *status = "declined".into();
        let key = reason.as_deref().unwrap_or("generic").to_lowercase();
        *why = reason;
        let from = c["challenger"]["id"].as_str().unwrap().to_string();
        let mut c = c.clone();
        c["status"] = json!("declined");
        c["declineReason"] = json!("I'm not accepting challenges at the moment.");
        c["declineReasonKey"] = json!(key);
        self.push_event(&from, json!({"type": "challengeDeclined", "challenge": c}));
        true
    }

    /// `GameEventInfo` of a game, as `user` sees it.
    pub fn game_info(&self, id: &str, user: &str) -> Value {
        let g = &self.games[id];
        let (mine, theirs) = if g.white.id == user {
            ("white", &g.black)
        } else {
            ("black", &g.white)
        };
        let my_turn = (g.pos.turn() == Color::White) == (mine == "white");
        let mut info = json!({
            "fullId": format!("{id}abcd"), "gameId": id, "id": id, "fen": shakmaty::fen::Fen::from_position(&g.pos, shakmaty::EnPassantMode::Legal).to_string(),
            "color": mine, "lastMove": g.moves.last().cloned().unwrap_or_default(), "source": "friend",
            "status": {"id": if g.status == "started" { 20 } else { 25 }, "name": g.status},
            "variant": {"key": "standard", "name": "Standard"}, "speed": "rapid", "perf": "rapid",
            "rated": g.rated, "hasMoved": !g.moves.is_empty(),
            "opponent": {"id": theirs.id, "username": theirs.name, "rating": theirs.rating},
            "isMyTurn": my_turn, "secondsLeft": g.initial_ms / 1000, "compat": {"bot": true, "board": true},
        });
        if let Some(w) = g.winner {
            info["winner"] = json!(w);
        }
        info
    }

    pub fn state_json(&self, id: &str) -> Value {
        let g = &self.games[id];
        let mut s = json!({
            "type": "gameState", "moves": g.moves.join(" "), "wtime": g.wtime.max(0), "btime": g.btime.max(0),
            "winc": g.increment_ms, "binc": g.increment_ms, "status": g.status,
        });
        let offers = [
            ("wdraw", g.wdraw),
            ("bdraw", g.bdraw),
            ("wtakeback", g.wtakeback),
            ("btakeback", g.btakeback),
        ];
        for (key, on) in offers {
            if on {
                s[key] = json!(true);
            }
        }
        if let Some(w) = g.winner {
            s["winner"] = json!(w);
        }
        s
    }

    pub fn full_json(&self, id: &str) -> Value {
        let g = &self.games[id];
        let player = |u: &User| {
            let mut p = json!({"id": u.id, "name": u.name, "rating": u.rating});
            if let Some(t) = &u.title {
                p["title"] = json!(t);
            }
            p
        };
        json!({
            "type": "gameFull", "id": id, "variant": {"key": "standard", "name": "Standard", "short": "Std"},
            "clock": {"initial": g.initial_ms, "increment": g.increment_ms}, "speed": "rapid", "perf": {"name": "Rapid"},
            "rated": g.rated, "createdAt": 1_764_300_000_000i64, "white": player(&g.white), "black": player(&g.black),
            "initialFen": "startpos", "state": self.state_json(id),
        })
    }

    /// A move by `user` in game `id`: checked, its clock charged, the game
    /// ended if it mates or stalemates, the new state pushed.
    pub fn play(&mut self, id: &str, user: &str, uci: &str) -> Result<(), String> {
        let g = self.games.get_mut(id).ok_or("no such game")?;
        if g.status != "started" {
            return Err("the game is over".into());
        }
        let white_to_move = g.pos.turn() == Color::White;
        let mover = if white_to_move { &g.white } else { &g.black };
        if mover.id != user {
            return Err("Not your turn, or game already over".into());
        }
        let m = uci
            .parse::<UciMove>()
            .map_err(|e| e.to_string())?
            .to_move(&g.pos)
            .map_err(|e| format!("{uci}: {e}"))?;
        let spent = g.turn_started.elapsed().as_millis() as i64;
        let clock = if white_to_move { &mut g.wtime } else { &mut g.btime };
        // As on Lichess, the clocks run from the second move on.
        if g.moves.len() >= 2 {
            *clock -= spent;
        }
        if *clock < 0 {
            g.status = "outoftime";
            g.winner = Some(if white_to_move { "black" } else { "white" });
        } else {
            *clock += g.increment_ms;
            g.pos.play_unchecked(m);
            g.moves.push(uci.to_string());
            // A move answers every standing offer, as on Lichess.
            (g.wdraw, g.bdraw, g.wtakeback, g.btakeback) = (false, false, false, false);
            if g.pos.is_checkmate() {
                g.status = "mate";
                g.winner = Some(if white_to_move { "white" } else { "black" });
            } else if g.pos.is_stalemate() {
                g.status = "stalemate";
            }
        }
        g.turn_started = Instant::now();
        self.after_change(id);
        Ok(())
    }

    /// The game's new state to its streams, and its end to both players.
    pub fn after_change(&mut self, id: &str) {
        let state = self.state_json(id);
        self.push_game(id, state);
        let g = &self.games[id];
        if g.status != "started" {
            let players = [g.white.id.clone(), g.black.id.clone()];
            for user in players {
                let info = self.game_info(id, &user);
                self.push_event(&user, json!({"type": "gameFinish", "game": info}));
            }
        }
    }

    pub fn say(&mut self, id: &str, room: &str, user: &str, text: &str) {
        let name = self.users.get(user).map_or(user.to_string(), |u| u.name.clone());
        if let Some(g) = self.games.get_mut(id) {
            g.chat.push((room.into(), name.clone(), text.into()));
        }
        self.push_game(
            id,
            json!({"type": "chatLine", "room": room, "username": name, "text": text}),
        );
    }

    fn human_of(&self, id: &str) -> String {
        let g = &self.games[id];
        if g.white.title.as_deref() == Some("BOT") {
            g.black.id.clone()
        } else {
            g.white.id.clone()
        }
    }

    pub fn human_move(&mut self, id: &str, uci: &str) -> Result<(), String> {
        let human = self.human_of(id);
        self.play(id, &human, uci)
    }

    pub fn human_chat(&mut self, id: &str, text: &str) {
        let human = self.human_of(id);
        self.say(id, "player", &human, text);
    }

    pub fn human_offers_draw(&mut self, id: &str) {
        let human = self.human_of(id);
        let g = self.games.get_mut(id).unwrap();
        if g.white.id == human {
            g.wdraw = true
        } else {
            g.bdraw = true
        }
        self.after_change(id);
    }

    pub fn human_proposes_takeback(&mut self, id: &str) {
        let human = self.human_of(id);
        let g = self.games.get_mut(id).unwrap();
        if g.white.id == human {
            g.wtakeback = true
        } else {
            g.btakeback = true
        }
        self.after_change(id);
    }

    /// `user`'s answer to the other side's takeback proposal: granted, the
    /// moves go back until it is the proposer's turn again (one move if they
    /// just moved, two if the answer came after it).
    pub fn answer_takeback(&mut self, id: &str, user: &str, yes: bool) {
        let g = self.games.get_mut(id).unwrap();
        let proposer_white = g.white.id != user;
        let proposed = if proposer_white { g.wtakeback } else { g.btakeback };
        if yes && proposed {
            let proposer_to_move = (g.pos.turn() == Color::White) == proposer_white;
            let back = if proposer_to_move { 2 } else { 1 };
            let keep = g.moves.len().saturating_sub(back);
            g.moves.truncate(keep);
            let mut pos = Chess::default();
            for uci in &g.moves {
                let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
                pos.play_unchecked(m);
            }
            g.pos = pos;
            g.turn_started = Instant::now();
        }
        (g.wtakeback, g.btakeback) = (false, false);
        self.after_change(id);
    }

    pub fn human_resigns(&mut self, id: &str) {
        let human = self.human_of(id);
        let g = self.games.get_mut(id).unwrap();
        g.status = "resign";
        g.winner = Some(if g.white.id == human { "black" } else { "white" });
        self.after_change(id);
    }

    /// The human closed their tab: the bot may claim the win after `secs`.
    pub fn human_leaves(&mut self, id: &str, secs: u32) {
        self.games.get_mut(id).unwrap().opponent_gone = true;
        self.push_game(
            id,
            json!({"type": "opponentGone", "gone": true, "claimWinInSeconds": secs}),
        );
    }

    pub fn drop_game_streams(&mut self, id: &str) {
        if let Some(g) = self.games.get_mut(id) {
            g.streams.clear();
        }
    }

    pub fn drop_event_streams(&mut self) {
        self.event_streams.clear();
    }

    pub fn view(&self, id: &str) -> GameView {
        let g = &self.games[id];
        GameView {
            moves: g.moves.clone(),
            status: g.status.into(),
            winner: g.winner.map(Into::into),
            chat: g.chat.clone(),
            wtime: g.wtime,
            btime: g.btime,
        }
    }
}
