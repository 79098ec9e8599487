// sqlx::migrate! embeds migrations/ at compile time; without this line a new
// migration file would not trigger a rebuild.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
    println!("cargo:rerun-if-changed=migrations/sqlite-rebuilds");
}
