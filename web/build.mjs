// Builds the club room into web/dist: one bundled script, the page, and the
// styles (ours plus chessground's board and pieces, from node_modules).
import { build } from "esbuild";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";

const out = "dist";
mkdirSync(out, { recursive: true });
await build({
  entryPoints: ["src/main.js"],
  bundle: true,
  format: "esm",
  minify: true,
  sourcemap: true,
  target: "es2020",
  outfile: `${out}/app.js`,
});
const css = [
  "node_modules/chessground/assets/chessground.base.css",
  "node_modules/chessground/assets/chessground.brown.css",
  "node_modules/chessground/assets/chessground.cburnett.css",
  "src/style.css",
].map((f) => readFileSync(f, "utf8"));
writeFileSync(`${out}/app.css`, css.join("\n"));
cpSync("index.html", `${out}/index.html`);
console.log(`web: built into web/${out}`);
