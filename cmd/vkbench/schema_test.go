package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vkbench/vkbench/results"
)

// results/schema/results-v2.json is the JSON Schema (draft 2020-12) of the
// versioned results format "vkbench.results/v2": what run and tune write
// with --format json, and compare and report read (results.Parse validates
// every file against it, or against v1.json for the first version). Every
// JSON output of the tests is validated against it here too, strictly (no
// unknown fields, formats asserted), with
// github.com/santhosh-tekuri/jsonschema.

// schemaFile is the schema of the current version.
var schemaFile = filepath.Join("..", "..", "results", "schema", "results-v2.json")

var (
	schemaMu sync.Mutex
	schemas  = map[string]*jsonschema.Schema{}
)

// loadSchema compiles the JSON Schema in the file at path, once.
func loadSchema(t testing.TB, path string) *jsonschema.Schema {
	t.Helper()
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if s, ok := schemas[path]; ok {
		return s
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // read only
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	id := doc.(map[string]any)["$id"].(string)
	if err := c.AddResource(id, doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	s, err := c.Compile(id)
	if err != nil {
		t.Fatalf("the schema %s does not compile: %v", path, err)
	}
	schemas[path] = s
	return s
}

func resultsSchema(t testing.TB) *jsonschema.Schema { return loadSchema(t, schemaFile) }

// validateResults fails t unless data is a valid vkbench.results/v1 file.
func validateResults(t testing.TB, data []byte) {
	t.Helper()
	if err := checkSchema(t, data); err != nil {
		t.Errorf("the results file does not follow %s: %v\n%s", results.Schema, err, data)
	}
}

func checkSchema(t testing.TB, data []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return resultsSchema(t).Validate(inst)
}

// TestSchemaNamesTheFormat: every document vkbench writes for programs
// (results, ab's and compare's reports, the devices) has its schema in
// results/schema, embedded in the library (results.SchemaJSON), titled by
// the name its "schema" field takes, which it requires; and the folder
// holds nothing else.
func TestSchemaNamesTheFormat(t *testing.T) {
	versions := []string{results.Schema, results.SchemaV1, results.ABSchema, results.CompareSchema, results.DevicesSchema}
	dir := filepath.Join("..", "..", "results", "schema")
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(versions) {
		t.Errorf("%s holds %d files, the schemas of %d documents: %v", dir, len(files), len(versions), files)
	}
	for _, v := range versions {
		embedded, err := results.SchemaJSON(v)
		if err != nil {
			t.Errorf("%s: %v", v, err)
			continue
		}
		var doc struct {
			Title      string   `json:"title"`
			Required   []string `json:"required"`
			Properties struct {
				Schema struct {
					Const string `json:"const"`
				} `json:"schema"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(embedded, &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Title != v || doc.Properties.Schema.Const != v || !slices.Contains(doc.Required, "schema") {
			t.Errorf("the schema of %s is titled %q and wants schema %q (required: %v)", v, doc.Title, doc.Properties.Schema.Const, doc.Required)
		}
	}
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if embedded, _ := results.SchemaJSON(results.Schema); !bytes.Equal(data, embedded) {
		t.Errorf("the schema the reader embeds is not %s", schemaFile)
	}
}

func TestSchemaAcceptsCraftedFiles(t *testing.T) {
	for _, name := range []string{"base.json", "slower.json", "faster.json", "noisy-base.json", "noisy-new.json", "mismatched.json"} {
		data, err := os.ReadFile(compareData(name))
		if err != nil {
			t.Fatal(err)
		}
		validateResults(t, data)
	}
	data, err := os.ReadFile(cliData("report-input.json"))
	if err != nil {
		t.Fatal(err)
	}
	validateResults(t, data)
}

// TestSchemaIsStrict checks that the schema rejects what a reader could
// not trust, so that passing it means something.
func TestSchemaIsStrict(t *testing.T) {
	base, err := os.ReadFile(compareData("base.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, old, new string }{
		{"unknown field", `"mode": "hot"`, `"mode": "hot", "extra": 1`},
		{"other schema", `"vkbench.results/v2"`, `"vkbench.results/v1"`},
		{"unknown outcome", `"outcome": "measured"`, `"outcome": "fast"`},
		{"bad time", `"time": "2026-01-02T03:04:05Z"`, `"time": "yesterday"`},
		{"measured without stats", `"stats": {`, `"statz": {`},
		{"failed without error", `"error": "wrong result at element 7: got 0, want 12"`, `"note": "x"`},
		{"winner false", `"winner": true`, `"winner": false`},
		{"negative time", `"median_s": 9.999999999999999e-05`, `"median_s": -9.999999999999999e-05`},
		{"no interval with 10 samples", `"ci_lo_s": 9.98e-05,`, ``},
		{"name not op/dtype/shape/candidate", `"name": "copy/u32/4096/vec4"`, `"name": "vec4"`},
		{"compiler statistic not a number", `"Register Count": 32`, `"Register Count": "32"`},
		{"empty compiler statistics", `"compiler": {
        "Register Count": 32,
        "Local Memory Size": 0
      }`, `"compiler": {}`},
		{"measured without rounds", `"rounds": [`, `"roundz": [`},
		{"a zero sample", `"samples_s": [
            9.95e-05`, `"samples_s": [
            0`},
		{"no rounds count", `"rounds": 5,`, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(string(base), tc.old) {
				t.Fatalf("base.json has no %s", tc.old)
			}
			bad := strings.Replace(string(base), tc.old, tc.new, 1)
			if err := checkSchema(t, []byte(bad)); err == nil {
				t.Errorf("the schema accepts a file with %s", tc.name)
			}
		})
	}
}

// TestCompilerStatsRead reads a benchmark's compiler statistics back from
// a results file.
func TestCompilerStatsRead(t *testing.T) {
	f, err := results.ReadFile(compareData("base.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, ok := f.Lookup("copy/u32/4096/vec4")
	if !ok {
		t.Fatal("base.json has no copy/u32/4096/vec4")
	}
	if got := b.Compiler["Register Count"]; got != 32 || len(b.Compiler) != 2 {
		t.Errorf("compiler statistics %v, want Register Count 32 and Local Memory Size 0", b.Compiler)
	}
}

// validateAgainst checks data against the schema results/schema/name.
func validateAgainst(t testing.TB, name string, data []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	if err := loadSchema(t, filepath.Join("..", "..", "results", "schema", name)).Validate(inst); err != nil {
		t.Errorf("the output does not follow %s: %v\n%s", name, err, data)
	}
}
