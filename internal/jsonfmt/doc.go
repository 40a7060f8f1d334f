// Package jsonfmt lays out the JSON files of a run directory for people
// and for size at once: indented as json.MarshalIndent indents, except that
// an object or array that holds only numbers, strings, booleans and nulls
// is written on one line. A results.json of all eight tests is a few
// hundred thousand such values (a sample, a round, a histogram's bins):
// one per line made the file 4.4 MB, one record per line 2.7 MB, and grep
// and diff then show a whole sample on its line.
package jsonfmt
