package results

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/vkbench/vkbench/status"
)

// The JSON Schemas (draft 2020-12) of every document vkbench writes for
// programs, each named by the document's "schema" field (schemaFileOf).
// Parse validates every results file against its version's, strictly (no
// unknown field, formats asserted), so that what the schema forbids no
// reader ever sees.
//
//go:embed schema/*.json
var schemaFiles embed.FS

// DevicesSchema names the version of the devices document (vkbench
// devices --format json).
const DevicesSchema = "vkbench.devices/v1"

// SchemaJSON returns the JSON Schema of a document vkbench writes, by the
// name its "schema" field gives (Schema, SchemaV1, ABSchema,
// CompareSchema, DevicesSchema).
func SchemaJSON(version string) ([]byte, error) {
	name, ok := schemaFileOf[version]
	if !ok {
		return nil, status.Newf(status.NotFound, "results: no schema %q", version)
	}
	return schemaFiles.ReadFile(name)
}

var schemaFileOf = map[string]string{
	SchemaV1:      "schema/results-v1.json",
	Schema:        "schema/results-v2.json",
	ABSchema:      "schema/ab-v2.json",
	CompareSchema: "schema/compare-v1.json",
	DevicesSchema: "schema/devices-v1.json",
}

// compiledSchemas are the embedded schemas, compiled once, by version.
var compiledSchemas = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	out := map[string]*jsonschema.Schema{}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	for v, name := range schemaFileOf {
		data, err := schemaFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		id := doc.(map[string]any)["$id"].(string)
		if err := c.AddResource(id, doc); err != nil {
			return nil, err
		}
		if out[v], err = c.Compile(id); err != nil {
			return nil, err
		}
	}
	return out, nil
})

// decodeValid decodes the JSON document data into v after checking that
// its "schema" field names one of versions (the first is the one this
// package writes) and that it follows that version's schema; it returns
// the version.
func decodeValid(data []byte, v any, versions ...string) (string, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return "", status.Wrap(err, status.InvalidArgument, "results: malformed JSON")
	}
	version, _ := doc.(map[string]any)["schema"].(string)
	if !slices.Contains(versions, version) {
		want := fmt.Sprintf("%q", versions[0])
		for _, other := range versions[1:] {
			want += fmt.Sprintf(" (or %q)", other)
		}
		family, _, _ := strings.Cut(versions[0], "/")
		switch {
		case version == "":
			return "", status.Newf(status.InvalidArgument, "results: not a file of vkbench: it names no \"schema\" (want %s)", want)
		case strings.HasPrefix(version, family+"/"):
			return "", status.Newf(status.InvalidArgument, "results: schema %q is of another version of vkbench; this one reads %s", version, want)
		}
		return "", status.Newf(status.InvalidArgument, "results: schema %q, want %s", version, want)
	}
	if err := validate(version, doc); err != nil {
		return "", err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return "", status.Wrap(err, status.InvalidArgument, "results: malformed JSON")
	}
	return version, nil
}

// validate checks the decoded JSON document doc against the schema of
// version; the error names the field of the first failure, as a JSON
// pointer, and what is wrong with it.
func validate(version string, doc any) error {
	schemas, err := compiledSchemas()
	if err != nil {
		return status.Wrap(err, status.Internal, "results: the embedded schemas do not compile")
	}
	err = schemas[version].Validate(doc)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return status.Wrap(err, status.InvalidArgument, "results: the file does not follow "+version)
	}
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	where := "/" + strings.Join(leaf.InstanceLocation, "/")
	return status.Newf(status.InvalidArgument, "results: the file does not follow %s: at %s: %s", version, where, describe(leaf))
}

// describe is what a validation error says, without the schema's URL.
func describe(e *jsonschema.ValidationError) string {
	switch k := e.ErrorKind.(type) {
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("%s is not above %s", k.Got.RatString(), k.Want.RatString())
	case *kind.Minimum:
		return fmt.Sprintf("%s is below %s", k.Got.RatString(), k.Want.RatString())
	}
	msg := e.Error()
	// "jsonschema validation failed with 'URL#/ptr'\n- at '/x': what"
	if i := strings.LastIndex(msg, "': "); i >= 0 {
		msg = msg[i+3:]
	}
	return strings.ReplaceAll(msg, "\n", " ")
}

// fieldError is an InvalidArgument that names the benchmark and the field.
func fieldError(i int, name, format string, args ...any) error {
	return status.Newf(status.InvalidArgument, "results: at /benchmarks/%d (%s): %s", i, name, fmt.Sprintf(format, args...))
}
