package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ManifestName is the file beside a collection that describes its rows (one JSON
// object per line: file, source, category, family, note, ...).
const ManifestName = "manifest.jsonl"

// Row is the part of a manifest row rigkit reads.
type Row struct {
	// File is the character's path relative to the manifest's folder, slash-separated.
	File string `json:"file"`
	// Source names the collection the file came from (e.g. "0ad").
	Source string `json:"source"`
	// Category is the manifest's own spelling; NormalizeCategory maps it.
	Category string `json:"category"`
	// Family is the row's own family name, where its source gives one.
	Family string `json:"family"`
	// Note is free text; "hierarchy from X.xml:Name" names the row's skeleton.
	Note string `json:"note"`
}

// Policy says what ReadManifest does with a line that is not a row.
type Policy int

const (
	// Strict fails on the first line that is not a JSON object with a "file" field,
	// naming the manifest and the line: for readers whose result decides what trains
	// or which half a family is tuned on, where a dropped row would move a file
	// silently.
	Strict Policy = iota
	// Lenient skips such lines: for readers that only label files for a report and
	// must not stop a rig over a hand-edited manifest.
	Lenient
)

// maxManifestLine bounds one manifest row (rows are a few hundred bytes).
const maxManifestLine = 1 << 20

// ReadManifest reads the rows of the manifest at path, in file order. Blank lines
// are skipped under both policies. A missing manifest is an error that wraps
// fs.ErrNotExist.
func ReadManifest(path string, policy Policy) ([]Row, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	defer fh.Close()
	var rows []Row
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 64<<10), maxManifestLine)
	for line := 1; sc.Scan(); line++ {
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		row, err := parseRow(raw)
		if err != nil {
			if policy == Lenient {
				continue
			}
			return nil, fmt.Errorf("manifest %s line %d: %w", path, line, err)
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	return rows, nil
}

// parseRow decodes one manifest line.
func parseRow(raw []byte) (Row, error) {
	var row Row
	if err := json.Unmarshal(raw, &row); err != nil {
		return Row{}, err
	}
	if row.File == "" {
		return Row{}, errors.New(`no "file" field`)
	}
	return row, nil
}

// manifest is one manifest.jsonl: its rows by file path relative to its folder and
// the size of each family.
type manifest struct {
	dir    string
	rows   map[string]Row
	family map[string]string
	size   map[string]int
}

// readManifest reads dir's manifest; nil without error when dir has none.
func readManifest(dir string, policy Policy) (*manifest, error) {
	rows, err := ReadManifest(filepath.Join(dir, ManifestName), policy)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	man := &manifest{dir: dir, rows: map[string]Row{}, family: map[string]string{}, size: map[string]int{}}
	for _, row := range rows {
		fam := rowFamily(row)
		man.rows[row.File] = row
		man.family[row.File] = fam
		man.size[fam]++
	}
	return man, nil
}
