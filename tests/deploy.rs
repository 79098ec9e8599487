//! The deployment example in `deploy/` as shipped: the systemd unit passes
//! `systemd-analyze verify` with this build's binary in place, and the
//! environment files it reads make a configuration kibitz accepts, with
//! every variable they set taking effect and no secret printed.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// `KEY=value` lines of an environment file, comments skipped.
fn env_file(path: &Path) -> BTreeMap<String, String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (k, v) = l.split_once('=').unwrap_or_else(|| panic!("not KEY=value: {l}"));
            (k.trim().to_string(), v.trim().to_string())
        })
        .collect()
}

fn shipped_env() -> BTreeMap<String, String> {
    let deploy = common::repo().join("deploy");
    let mut env = env_file(&deploy.join("club.env.example"));
    env.extend(env_file(&deploy.join("node-1.env.example")));
    env
}

#[test]
fn the_example_environment_is_a_configuration_kibitz_accepts() {
    let env = shipped_env();
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kibitz"))
        .arg("config")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .envs(&env)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{shown}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.stderr.is_empty(),
        "no variable is unknown: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Each variable the files set is in force: a setting's line names it
    // as its source (a misspelt one would name none), with its value, a
    // URL's password shown as ***, a secret not at all.
    for (key, value) in &env {
        let source = format!("(env {key})");
        let line = shown
            .lines()
            .find(|l| l.ends_with(&source))
            .unwrap_or_else(|| panic!("{key} is in force nowhere:\n{shown}"));
        let hidden = key.contains("SECRET") || key.contains("TOKEN");
        match hidden {
            true => assert!(
                line.contains("= (set, not shown)") && !shown.contains(value.as_str()),
                "{line}"
            ),
            false => {
                let value = value.replace("CHANGE-ME@", "***@");
                assert!(
                    line.contains(&format!("= {value}  (")),
                    "{key}={value} is not in force: {line}"
                );
            }
        }
    }
}

#[test]
fn the_systemd_unit_verifies_with_this_build_in_place() {
    let Ok(analyze) = which("systemd-analyze") else {
        eprintln!("skipped: no systemd-analyze on this machine");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let etc = dir.path().join("etc");
    std::fs::create_dir_all(&etc).unwrap();
    std::fs::copy(common::repo().join("deploy/club.env.example"), etc.join("club.env")).unwrap();
    std::fs::copy(common::repo().join("deploy/node-1.env.example"), etc.join("node-1.env")).unwrap();
    let shipped = std::fs::read_to_string(common::repo().join("deploy/kibitz@.service")).unwrap();
    // Where the unit expects the install, this test's copy stands in.
    let unit = shipped
        .replace("/opt/kibitz/kibitz", env!("CARGO_BIN_EXE_kibitz"))
        .replace("/opt/kibitz", &common::repo().display().to_string())
        .replace("/etc/kibitz", &etc.display().to_string());
    assert_ne!(unit, shipped, "the unit names its install paths");
    let path = dir.path().join("kibitz@1.service");
    std::fs::write(&path, unit).unwrap();
    let out = Command::new(analyze).arg("verify").arg(&path).output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success() && said.trim().is_empty(), "{said}");
}

fn which(name: &str) -> Result<std::path::PathBuf, ()> {
    let path = std::env::var_os("PATH").ok_or(())?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .ok_or(())
}
