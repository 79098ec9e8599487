// A persona imported from a character card while the server runs: the lobby
// lists it with its portrait, and its match shows the card's face for its
// mood and its greeting. Run against a `kibitz serve` into which
// tests/web.rs imported a V3 card ($KIBITZ_URL).

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { ARTIFACTS, BASE, launch, signIn } from "../e2e/browser.mjs";

/** Whether an image element loaded a real image, once it has loaded or
 * failed (checked at once, a portrait still on its way read as missing). */
const loaded = (img) =>
  img.evaluate((el) =>
    el.complete
      ? el.naturalWidth > 0
      : new Promise((done) => {
          el.addEventListener("load", () => done(el.naturalWidth > 0), { once: true });
          el.addEventListener("error", () => done(false), { once: true });
        }),
  );

test("an imported card plays with its portrait and faces", { timeout: 60_000 }, async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  try {
    await signIn(page, "Robin");
    const card = page.locator('.persona[data-persona="captain-rook"]');
    await card.waitFor();
    assert.ok(await loaded(card.locator("img.portrait")), "its portrait shows in the lobby");
    await page.screenshot({ path: `${ARTIFACTS}/10-card-lobby.png` });
    await card.getByRole("button", { name: "Play Captain" }).click();
    await page.locator(".board-side cg-board").waitFor();
    await page.locator(".msg.persona").first().waitFor();
    const greeting = await page.locator(".msg.persona").first().innerText();
    assert.match(greeting, /Ahoy, Robin!|Well met, Robin\./, "the card's greeting");
    const face = page.locator(".opponent .face img.face-image");
    await face.waitFor();
    assert.ok(await loaded(face), "the mood shows the card's image for it");
    assert.ok(await loaded(page.locator(".opponent img.portrait")), "and the portrait beside it");
    await page.screenshot({ path: `${ARTIFACTS}/11-card-match.png` });
  } catch (e) {
    await page.screenshot({ path: `${ARTIFACTS}/failure-card.png` }).catch(() => {});
    throw e;
  } finally {
    await browser.close();
  }
});
