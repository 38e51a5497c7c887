// Colours a reader can tell apart (and that survive GitHub's light and dark themes on a white card): one per
// target, in the order a layout names them, and fixed ones for what means the same in every chart.

const TARGET_COLOURS = ["#1f6feb", "#e8590c", "#2f9e44", "#9c36b5", "#c92a2a", "#0c8599"];

export const targetColour = (index: number): string => TARGET_COLOURS[index % TARGET_COLOURS.length]!;

export const COLOURS = {
  offered: "#868e96",
  accepted: "#1f6feb",
  refused: "#c92a2a",
  band: "#ffe3e3",
  axis: "#495057",
  grid: "#e9ecef",
  text: "#212529",
} as const;
