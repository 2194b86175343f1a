/**
 * The checkpoints row of the timeline: a mark at every turn's end and every wait for
 * approval (where a durable session keeps a checkpoint), and, for the mark chosen, the
 * `loopchart fork` command that starts a new session from it.
 */
import { el } from "./dom.js";
import { checkpointAt, forkCommand, type RunSession } from "./fork-command.js";
import type { CheckpointMark } from "./run-index.js";

export type { RunSession } from "./fork-command.js";

/** How a checkpoint is named on its button: `turn 3`, `turn 3 · wait call_1`. */
const nameOf = (mark: CheckpointMark, session: RunSession): string => {
  const at = checkpointAt(mark, session);
  return mark.kind === "turn" ? `turn ${at}` : `turn ${at.split(":")[0]} · wait ${mark.toolCallId ?? ""}`;
};

/**
 * Draws the row: a tick per checkpoint at `percent(t)` of the row's width (the chosen one
 * highlighted); a click calls `choose` with it.
 */
export function checkpointRow(marks: readonly CheckpointMark[], session: RunSession, percent: (t: number) => number, chosen: CheckpointMark | undefined, choose: (mark: CheckpointMark) => void): HTMLElement {
  const row = el("div", { class: "lane checkpoints" });
  row.append(el("span", { class: "label", title: "where a durable session keeps a checkpoint: click one for its fork command" }, "checkpoints"));
  const ticks = el("div", { class: "ticks" });
  for (const mark of marks) {
    const tick = el("div", { class: `checkpoint ${mark.kind}${mark === chosen ? " chosen" : ""}`, "data-at": checkpointAt(mark, session), "data-record": String(mark.at), title: `${nameOf(mark, session)}: click for its fork command` });
    tick.style.left = `${percent(mark.t)}%`;
    tick.addEventListener("click", () => choose(mark));
    ticks.append(tick);
  }
  row.append(ticks);
  return row;
}

/**
 * The panel under the lanes: a button per checkpoint (in order, so close ones stay apart)
 * and, for the chosen one, the command that forks the run's session there.
 */
export function forkPanel(marks: readonly CheckpointMark[], chosen: CheckpointMark | undefined, session: RunSession, choose: (mark: CheckpointMark) => void): HTMLElement {
  const panel = el("div", { class: "fork-panel", "data-checkpoint": chosen ? checkpointAt(chosen, session) : "" });
  const choices = el("div", { class: "choices" });
  for (const mark of marks) {
    const button = el("button", { class: `choice ${mark.kind}${mark === chosen ? " chosen" : ""}`, "data-at": checkpointAt(mark, session) }, nameOf(mark, session));
    button.onclick = () => choose(mark);
    choices.append(button);
  }
  panel.append(choices);
  if (!chosen) {
    panel.append(el("span", { class: "hint" }, "Click a checkpoint to fork the run there."));
    return panel;
  }
  const where = chosen.kind === "turn" ? `the end of turn ${checkpointAt(chosen, session)}` : `the wait for approval of ${chosen.toolCallId} (turn ${checkpointAt(chosen, session).split(":")[0]})`;
  const command = forkCommand(chosen, session);
  panel.append(el("span", { class: "hint" }, `Fork at ${where}${chosen.kind === "turn" ? ' (add --prompt "…" to replace what came after)' : ""}:`));
  panel.append(el("code", { class: "fork-command" }, command));
  return panel;
}
