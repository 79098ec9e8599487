//! Character cards in and out (V2 and V3, JSON and PNG) and memories
//! imported from an export: cards written by hand from the specs become
//! personas that greet with their words and recall their lorebook, export
//! to cards that import back to the same persona, and broken or hostile
//! input is refused naming the field, with nothing written.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use common::cards::*;
use common::*;
use kibitz::personas::{Persona, load_file};
use reqwest::Method;
use serde_json::{Value, json};

const ADMIN: &str = "admin-token-for-the-card-tests";

/// Every file under `dir` (relative path -> bytes), staging dirs included.
fn files_of(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            for (inner, bytes) in files_of(&path) {
                out.insert(format!("{name}/{inner}"), bytes);
            }
        } else {
            out.insert(name, std::fs::read(&path).unwrap());
        }
    }
    out
}

/// One persona's file and images.
fn persona_files(dir: &Path, id: &str) -> BTreeMap<String, Vec<u8>> {
    files_of(dir)
        .into_iter()
        .filter(|(k, _)| k == &format!("{id}.toml") || k.starts_with(&format!("{id}.assets/")))
        .collect()
}

/// `kibitz ARGS` on a personas directory alone, from a neutral directory.
fn kibitz(personas: &Path, args: &[&str]) -> (bool, String) {
    let cwd = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kibitz"))
        .args(args)
        .current_dir(cwd.path())
        .env("KIBITZ_PERSONAS_DIR", personas)
        .env("RUST_LOG", "error")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn cards_become_personas_and_export_back_to_the_same_persona() {
    let work = tempfile::tempdir().unwrap();
    let v2 = v2_json(captain_data());
    let cases = [
        ("v2.json", v2.clone(), &["v3-png", "v3-json", "v2-json"][..]),
        ("v2.png", png(4, &[("chara", b64(&v2))]), &["v3-png", "v3-json"][..]),
        ("v3.png", captain_v3_png(), &["v3-png", "v3-json"][..]),
    ];
    for (name, bytes, formats) in cases {
        let dir = personas_copy();
        let card = write(work.path(), name, &bytes);
        let (ok, out) = kibitz(dir.path(), &["personas", "import", &card, "--elo", "1650"]);
        assert!(ok, "{name}: {out}");
        assert!(out.contains("positional style (kibitz's default;"), "{name}: {out}");
        let p: Persona = load_file(&dir.path().join("captain-rook.toml")).unwrap();
        assert_eq!((p.elo, p.chattiness, p.examples.len()), (1650, 2, 2), "{name}");
        let greetings: Vec<&str> = p.lines.greeting.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            greetings,
            [
                "*sets down his pipe* Ahoy, {player}! Captain Rook at your service. Mind the board, it rolls.",
                "Well met, {player}. Sit, the tide waits for no one."
            ],
            "{name}"
        );
        assert_eq!(p.lore.len(), 2, "the disabled entry stays out: {:?}", p.lore);
        assert_eq!(p.lore[0].keys, ["lighthouse", "Brannock", "Old Nell"]);
        assert!(
            p.lore[0].text.starts_with("Captain Rook kept the Brannock lighthouse"),
            "{:?}",
            p.lore[0]
        );
        assert_eq!(p.lore[1].importance, 1.0, "a constant entry matters most");
        assert!(p.lore[0].importance < 1.0);
        assert!(
            !p.lore[1].text.contains("@@"),
            "decorators are not lore: {:?}",
            p.lore[1]
        );
        assert!(p.biography.starts_with("Captain Rook is a retired sea captain"));
        if name == "v3.png" {
            assert_eq!(p.avatar.as_deref(), Some("avatar.png"));
            assert_eq!(p.expression_images.keys().collect::<Vec<_>>(), ["joy", "neutral"]);
            assert_eq!((p.emotions[0].as_str(), p.moods.win.as_str()), ("neutral", "joy"));
            assert!(out.contains("fetches nothing from the network"), "{out}");
        }
        let original = persona_files(dir.path(), "captain-rook");
        for format in formats {
            let exported = work.path().join(format!("out-{format}"));
            let exported = exported.to_string_lossy();
            let (ok, out) = kibitz(
                dir.path(),
                &[
                    "personas",
                    "export",
                    "captain-rook",
                    "--format",
                    format,
                    "--out",
                    &exported,
                ],
            );
            assert!(ok, "{out}");
            let fresh = tempfile::tempdir().unwrap();
            let (ok, out) = kibitz(fresh.path(), &["personas", "import", &exported]);
            assert!(ok, "{name} -> {format}: {out}");
            assert_eq!(
                persona_files(fresh.path(), "captain-rook"),
                original,
                "{name} -> {format} -> import is the same persona"
            );
        }
    }
}

#[test]
fn a_name_or_id_taken_is_refused_unless_replaced() {
    let dir = personas_copy();
    let work = tempfile::tempdir().unwrap();
    let mut data = captain_data();
    data["name"] = json!("Viktor Sokolov");
    let card = write(work.path(), "viktor.json", &v2_json(data));
    let before = files_of(dir.path());
    let (ok, out) = kibitz(dir.path(), &["personas", "import", &card, "--id", "viktor-two"]);
    assert!(!ok && out.contains("field `name`"), "{out}");
    let (ok, out) = kibitz(dir.path(), &["personas", "import", &card, "--id", "viktor"]);
    assert!(!ok && out.contains("field `id`") && out.contains("--replace"), "{out}");
    assert_eq!(files_of(dir.path()), before, "nothing written");
    let (ok, out) = kibitz(
        dir.path(),
        &[
            "personas",
            "import",
            &card,
            "--id",
            "viktor",
            "--replace",
            "--elo",
            "2000",
        ],
    );
    assert!(ok && out.contains("replaced"), "{out}");
    let viktor = load_file(&dir.path().join("viktor.toml")).unwrap();
    assert_eq!((viktor.elo, viktor.lore.len()), (2000, 2));
}

async fn import(server: &Server, query: &str, body: Vec<u8>) -> (u16, Value) {
    import_card(server, ADMIN, query, body).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imported_card_plays_with_its_greeting_faces_and_lore() {
    let dir = personas_copy();
    let dir_env = dir.path().to_string_lossy().to_string();
    let server = Server::start_with(&[("KIBITZ_PERSONAS_DIR", &dir_env), ("KIBITZ_ADMIN_TOKEN", ADMIN)]).await;
    let (status, out) = import(&server, "?style=aggressive", captain_v3_png()).await;
    assert_eq!(status, 201, "{out}");
    assert_eq!(
        (out["persona"]["id"].as_str(), out["lore"].as_u64()),
        (Some("captain-rook"), Some(2)),
        "{out}"
    );
    assert!(
        out["notes"].to_string().contains("1500 Elo"),
        "the default is said: {out}"
    );
    // The page lists it at once, with its portrait and faces.
    let (_, list) = server.get("/api/personas").await;
    let rook = list
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "captain-rook")
        .expect("listed without a restart")
        .clone();
    for url in [
        rook["avatar_url"].as_str().unwrap(),
        rook["expression_images"]["joy"].as_str().unwrap(),
    ] {
        let r = reqwest::get(format!("{}{url}", server.base)).await.unwrap();
        assert_eq!(r.headers()["content-type"], "image/png");
        assert!(r.bytes().await.unwrap().starts_with(b"\x89PNG"));
    }
    let (status, _) = server
        .get("/api/personas/captain-rook/images/..%2F..%2Fviktor.toml")
        .await;
    assert_eq!(status, 400, "an encoded slash is refused before any route");
    let (status, _) = server.get("/api/personas/captain-rook/images/viktor.toml").await;
    assert_eq!(status, 404, "only the files the persona names");

    let ann = server.new_player("Ann").await;
    let (m, _) = server.new_match(&ann, "captain-rook", "white").await;
    let greeted = eventually(20, || async {
        let said = server
            .events(&m)
            .await
            .iter()
            .map(|e| e.to_string())
            .collect::<String>();
        said.contains("Ahoy, Ann!") || said.contains("Well met, Ann.")
    })
    .await;
    assert!(greeted, "the card's greeting: {:?}", server.events(&m).await);
    let (status, out) = server
        .post(&format!("/api/matches/{m}/chat"), json!({ "text": "Who is Old Nell?" }))
        .await;
    assert_eq!(status, 200, "{out}");
    assert!(
        out["events"].to_string().contains("Brannock lighthouse"),
        "the persona tells it: {out}"
    );
    let lighthouse: String = {
        let pool = server.sql().await;
        let row: (String,) =
            sqlx::query_as("SELECT id FROM memories WHERE persona_id = 'captain-rook' AND content LIKE '%lighthouse%'")
                .fetch_one(&pool)
                .await
                .unwrap();
        row.0
    };
    let log = server.triggers(&m).await;
    let chat = log.iter().rev().find(|t| t["trigger"] == "on_user_input").unwrap();
    // The line shares no meaning with the entry's words: only its key brings it.
    assert!(
        chat["recalled_ids"].to_string().contains(&lighthouse),
        "its key brings the lore: {chat}"
    );
    // Whatever a line is for (a greeting here), a key said brings its lore
    // into the answer.
    let hello = json!({ "text": "Hello again! Is the lighthouse still lit?" });
    let (status, out) = server.post(&format!("/api/matches/{m}/chat"), hello).await;
    assert_eq!(status, 200, "{out}");
    assert!(
        out["events"].to_string().contains("Brannock lighthouse"),
        "a greeting that names a key: {out}"
    );

    // It exports as a card, which names its portrait and faces.
    let r = reqwest::Client::new()
        .get(format!(
            "{}/api/admin/personas/captain-rook/card?format=v3-json",
            server.base
        ))
        .bearer_auth(ADMIN)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let card: Value = r.json().await.unwrap();
    assert_eq!(card["spec"], "chara_card_v3");
    assert_eq!(card["data"]["extensions"]["kibitz"]["persona"]["style"], "aggressive");
    let (status, _) = server
        .send_as(
            Method::GET,
            "/api/admin/personas/captain-rook/card",
            Some(&server.token(&ann)),
            None,
        )
        .await;
    assert_eq!(status, 403, "admin only");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_and_hostile_cards_name_the_field_and_write_nothing() {
    let dir = personas_copy();
    let dir_env = dir.path().to_string_lossy().to_string();
    let server = Server::start_with(&[("KIBITZ_PERSONAS_DIR", &dir_env), ("KIBITZ_ADMIN_TOKEN", ADMIN)]).await;
    let lore_rows = || async {
        let pool = server.sql().await;
        let n: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM memories WHERE player_id IS NULL")
            .fetch_one(&pool)
            .await
            .unwrap();
        n.0
    };
    let (files, lore) = (files_of(dir.path()), lore_rows().await);
    let with = |f: &dyn Fn(&mut Value)| {
        let mut data = captain_data();
        f(&mut data);
        v2_json(data)
    };
    let huge_book: Vec<Value> = (0..100_000).map(|_| json!({ "keys": [], "content": "x" })).collect();
    let cases: Vec<(&str, Vec<u8>, u16, &str)> = vec![
        (
            "a PNG without the chunk",
            png(4, &[("Comment", "hello".into())]),
            422,
            "no tEXt chunk",
        ),
        ("bad base64", png(4, &[("ccv3", "%%%".into())]), 422, "PNG chunk `ccv3`"),
        (
            "invalid JSON",
            png(4, &[("chara", b64(b"{\"spec\": oops"))]),
            422,
            "not valid JSON",
        ),
        ("over 5 MiB", vec![b' '; 5 * 1024 * 1024 + 10], 413, "5 MiB"),
        (
            "a lorebook of 100,000 entries",
            with(&|d| d["character_book"]["entries"] = json!(huge_book)),
            422,
            "data.character_book.entries",
        ),
        (
            "a script tag",
            with(&|d| d["description"] = json!("Nice <script>steal()</script>")),
            422,
            "data.description",
        ),
        (
            "a control character",
            with(&|d| d["character_book"]["entries"][0]["content"] = json!("bell \u{7}")),
            422,
            "data.character_book.entries[0].content",
        ),
        (
            "a wrong type",
            with(&|d| d["alternate_greetings"] = json!("hi")),
            422,
            "data.alternate_greetings",
        ),
        ("no name", with(&|d| d["name"] = json!("  ")), 422, "data.name"),
        (
            "a name taken",
            with(&|d| d["name"] = json!("Margot Vidal")),
            409,
            "field `name`",
        ),
    ];
    for (what, body, status, says) in cases {
        let (got, out) = import(&server, "", body).await;
        assert_eq!(got, status, "{what}: {out}");
        assert!(
            out["error"]["message"].as_str().unwrap_or("").contains(says),
            "{what}: {out}"
        );
    }
    let (got, out) = import(&server, "?id=viktor", v2_json(captain_data())).await;
    assert_eq!(got, 409, "an id taken: {out}");
    let (got, out) = import(&server, "?elo=9000", v2_json(captain_data())).await;
    assert!(
        got == 422 && out["error"]["message"].as_str().unwrap().contains("elo"),
        "{out}"
    );
    assert_eq!(files_of(dir.path()), files, "no persona file, image or staging left");
    assert_eq!(lore_rows().await, lore, "no lore from a failed import");
    let (_, list) = server.get("/api/personas").await;
    assert_eq!(list.as_array().unwrap().len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memories_come_back_from_an_export_through_the_write_policy() {
    let mut server = Server::start().await;
    let ann = server.new_player("Ann").await;
    let (m, _) = server.new_match(&ann, "viktor", "white").await;
    for line in [
        "I learned chess from my grandmother in Riga",
        "I love the Italian game, it's my favourite opening",
    ] {
        server.say(&m, line).await;
    }
    let export = server
        .get_as(&format!("/api/players/{ann}/memories/export"), &server.token(&ann))
        .await
        .1;
    let told: Vec<String> = server.memory_texts(&ann).await;
    assert!(told.len() >= 2, "{told:?}");

    let bea = server.new_player("Bea").await;
    let upload = |player: &str, body: &Value| {
        let token = server.token(player);
        let url = format!("{}/api/players/{player}/memories/import?source=ann.json", server.base);
        let body = body.to_string();
        async move {
            let r = reqwest::Client::new()
                .post(url)
                .bearer_auth(token)
                .body(body)
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    let (status, report) = upload(&bea, &export).await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["inserted"].as_u64().unwrap() as usize, told.len(), "{report}");
    let mut got = server.memory_texts(&bea).await;
    let mut want = told.clone();
    got.sort();
    want.sort();
    assert_eq!(got, want, "the export round-trips");
    let mine = server.memories(&bea).await;
    assert!(
        mine.iter().all(|x| x["metadata"]["imported"]["from"] == "ann.json"),
        "{mine:?}"
    );
    let (_, again) = upload(&bea, &export).await;
    assert_eq!(
        (
            again["inserted"].as_u64(),
            again["reinforced"].as_u64().map(|n| n as usize)
        ),
        (Some(0), Some(told.len())),
        "{again}"
    );

    // Only into one's own memories; no lore; bad fields named; nothing written.
    let url = format!("/api/players/{ann}/memories/import");
    let (status, _) = server
        .send_as(Method::POST, &url, Some(&server.token(&bea)), Some(export.clone()))
        .await;
    assert!(status == 403 || status == 404, "{status}");
    let mut lore = export.clone();
    lore["memories"][1]["memory"]["player_id"] = Value::Null;
    let (status, out) = upload(&bea, &lore).await;
    assert_eq!(status, 422, "{out}");
    assert!(
        out["error"]["message"]
            .as_str()
            .unwrap()
            .contains("memories[1].memory.player_id"),
        "{out}"
    );
    assert_eq!(server.memory_texts(&bea).await.len(), told.len());

    // The command line does the same on a stopped server.
    let file = server.data_path().join("ann.json");
    std::fs::write(&file, export.to_string()).unwrap();
    let cy = server.new_player("Cy").await;
    server.stop();
    let (ok, out, err) = server.run_cli(&["memories", "import", &file.to_string_lossy(), "--player", &cy]);
    assert!(ok, "{out}{err}");
    assert!(out.contains(&format!("{} inserted", told.len())), "{out}");
}
