/** A SKILL.md's front matter with one read script (`extract`, which takes a file), as the tests' starting point. */
export const PDF_SKILL_FRONT_MATTER = `name: pdf-report
version: 1.0.0
description: Use when an invoice or a report arrives as a PDF and its text is needed.
triggers: [pdf, "extract text"]
tools:
  - name: extract
    title: Extract a PDF's text
    description: Use to get the text of one PDF of the skill's samples.
    grade: read
    script: scripts/extract.sh
    interpreter: sh
    args: { type: object, properties: { file: { type: string } }, required: [file] }
    argv: ["{file}"]`;

/** A whole SKILL.md: `frontMatter` between its fences, then the instructions. */
export const skillMd = (frontMatter = PDF_SKILL_FRONT_MATTER, body = "# Reading PDFs\n\nRun the extract script first.") => `---\n${frontMatter}\n---\n${body}\n`;
