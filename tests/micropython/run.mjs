// Runs a Python script under real MicroPython (the WebAssembly port) with the firmware modules
// importable: node run.mjs PACKAGE_DIR FIRMWARE_DIR SCRIPT.py  -> the script's output on stdout.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [packageDir, firmwareDir, script] = process.argv.slice(2);
const { loadMicroPython } = await import(pathToFileURL(join(packageDir, "micropython.mjs")).href);
const lines = [];
const mp = await loadMicroPython({ stdout: (line) => lines.push(line), linebuffer: true });
mp.FS.mkdir("/fw");
for (const name of readdirSync(firmwareDir)) {
  if (name.endsWith(".py") && name !== "main.py") mp.FS.writeFile("/fw/" + name, readFileSync(join(firmwareDir, name)));
}
try {
  mp.runPython("import sys\nsys.path.insert(0, '/fw')\n" + readFileSync(script, "utf8"));
} catch (err) {
  process.stdout.write(lines.join("\n") + "\n");
  console.error(String(err));
  process.exit(1);
}
process.stdout.write(lines.join("\n") + "\n");
