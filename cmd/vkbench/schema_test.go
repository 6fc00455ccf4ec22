package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vkbench/vkbench/results"
)

// results/schema/v2.json is the JSON Schema (draft 2020-12) of the
// versioned results format "vkbench.results/v2": what run and tune write
// with --format json, and compare and report read (results.Parse validates
// every file against it, or against v1.json for the first version). Every
// JSON output of the tests is validated against it here too, strictly (no
// unknown fields, formats asserted), with
// github.com/santhosh-tekuri/jsonschema.

// schemaFile is the schema of the current version.
var schemaFile = filepath.Join("..", "..", "results", "schema", "v2.json")

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

func TestSchemaNamesTheFormat(t *testing.T) {
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	embedded, err := results.SchemaJSON(results.Schema)
	if err != nil || !bytes.Equal(data, embedded) {
		t.Errorf("the schema the reader embeds is not %s (%v)", schemaFile, err)
	}
	var doc struct {
		Title      string `json:"title"`
		Properties struct {
			Schema struct {
				Const string `json:"const"`
			} `json:"schema"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Title != results.Schema || doc.Properties.Schema.Const != results.Schema {
		t.Errorf("the schema is titled %q and wants schema %q; the format is %q", doc.Title, doc.Properties.Schema.Const, results.Schema)
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
