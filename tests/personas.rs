//! A persona file with a wrong field is refused, naming the file and field.

mod common;

use std::process::Command;

use common::repo;
use kibitz::personas::load_dir;

fn copy_personas_with(file: &str, from: &str, to: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(repo().join("personas")).unwrap() {
        let path = entry.unwrap().path();
        let mut text = std::fs::read_to_string(&path).unwrap();
        if path.file_name().unwrap() == file {
            assert!(text.contains(from), "{from} not in {file}");
            text = text.replacen(from, to, 1);
        }
        std::fs::write(dir.path().join(path.file_name().unwrap()), text).unwrap();
    }
    dir
}

#[test]
fn wrong_fields_are_named_with_their_file() {
    let cases = [
        ("margot.toml", "elo = 1500", "elo = \"strong\"", "elo"),
        ("margot.toml", "elo = 1500", "elo = 99999", "elo"),
        ("viktor.toml", "chattiness = 2", "chattiness = 2\nmood = \"x\"", "mood"),
        (
            "pip.toml",
            "user_capture = \"pouty\"",
            "user_capture = \"furious\"",
            "moods.user_capture",
        ),
        ("pip.toml", "tone = \"playful\" }", "tone = \"shouty\" }", "tone"),
        (
            "viktor.toml",
            "{player}! Sit",
            "{opponent}! Sit",
            "lines.greeting[1].text",
        ),
        (
            "margot.toml",
            "first_after_secs = 60",
            "first_after_secs = 0",
            "idle.first_after_secs",
        ),
        ("pip.toml", "giddy = ", "furious = ", "expressions.furious"),
        (
            "viktor.toml",
            "style = \"aggressive\"",
            "style = \"aggressive\"\nbrain = \"telepathy\"",
            "brain",
        ),
    ];
    for (file, from, to, field) in cases {
        let dir = copy_personas_with(file, from, to);
        let err = load_dir(dir.path()).expect_err(to).to_string();
        assert!(err.contains(file), "{err} should name {file}");
        assert!(err.contains(field), "{err} should name {field}");
    }
}

#[test]
fn the_server_refuses_to_start_on_a_bad_persona() {
    let dir = copy_personas_with("margot.toml", "style = \"positional\"", "style = \"sneaky\"");
    let data = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kibitz"))
        .arg("serve")
        .env("KIBITZ_PERSONAS_DIR", dir.path())
        .env("KIBITZ_DATA_DIR", data.path())
        .env("KIBITZ_MODELS_DIR", repo().join("models"))
        .env("KIBITZ_LISTEN", "127.0.0.1:0")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("margot.toml") && stderr.contains("style"), "{stderr}");
}

#[test]
fn missing_models_name_the_fix() {
    let empty = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kibitz"))
        .arg("serve")
        .env("KIBITZ_PERSONAS_DIR", repo().join("personas"))
        .env("KIBITZ_DATA_DIR", data.path())
        .env("KIBITZ_MODELS_DIR", empty.path())
        .env("KIBITZ_LISTEN", "127.0.0.1:0")
        .env_remove("ORT_DYLIB_PATH")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("make models"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
