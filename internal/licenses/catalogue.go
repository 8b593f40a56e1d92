// Package licenses is the catalogue of licenses GitHub offers, the
// detection of a repository's license (with a real text classifier) and
// the .gitignore templates. Repository creation takes its license_template
// and gitignore_template texts from here; REST serves them in
// internal/api/licenses.
package licenses

import (
	"sort"
	"strings"

	"github.com/google/licenseclassifier/v2/assets"

	"github.com/hubd/hubd/internal/wire"
)

// License is one license of the catalogue: GitHub's key and name, its SPDX
// id, a description in our words, and choosealicense.com's vocabulary of
// permissions, conditions and limitations. Texts come from the
// licenseclassifier assets (Apache-2.0), with GitHub's placeholders
// [year] and [fullname] where a copyright line belongs.
type License struct {
	Key, Name, SPDX string
	Description     string
	Permissions     []string
	Conditions      []string
	Limitations     []string
	// Featured licenses are the ones GitHub suggests first; Common ones are
	// listed by GET /licenses.
	Featured, Common bool
	// Body is the text with its placeholders.
	Body string

	asset  string    // License/<name>/<variant> in the classifier's assets
	header string    // prepended to the asset text
	swap   [2]string // replaced in the asset text
}

// Vocabulary shared by most licenses.
var (
	permissive = []string{"commercial-use", "modifications", "distribution", "private-use"}
	withPatent = []string{"commercial-use", "modifications", "distribution", "patent-use", "private-use"}
	noWarranty = []string{"liability", "warranty"}
)

const implementation = "Create a file named LICENSE (or LICENSE.txt or LICENSE.md) at the root of your repository " +
	"and put the text of the license in it. Where the text has [year] and [fullname], put the current year " +
	"and the name (or names) of the copyright holders."

var catalogue = []*License{
	{
		Key: "agpl-3.0", Name: "GNU Affero General Public License v3.0", SPDX: "AGPL-3.0", Common: true,
		Description: "The strongest of the GNU copyleft licenses: modified versions must be released under the same " +
			"license with their complete source, and that includes versions that users only reach over a network, " +
			"such as a hosted web service. Copyright and license notices must be kept and changes stated; " +
			"contributors grant their patent rights.",
		Permissions: withPatent,
		Conditions:  []string{"include-copyright", "document-changes", "disclose-source", "network-use-disclose", "same-license"},
		Limitations: noWarranty,
		asset:       "License/AGPL-3.0/license.txt",
	},
	{
		Key: "apache-2.0", Name: "Apache License 2.0", SPDX: "Apache-2.0", Featured: true, Common: true,
		Description: "A permissive license that also grants the contributors' patent rights. Redistributions keep " +
			"the copyright and license notices and say which files were changed; larger works may use other " +
			"terms. Trademarks are not licensed.",
		Permissions: withPatent,
		Conditions:  []string{"include-copyright", "document-changes"},
		Limitations: []string{"trademark-use", "liability", "warranty"},
		asset:       "License/Apache-2.0/pristine.txt",
	},
	{
		Key: "bsd-2-clause", Name: `BSD 2-Clause "Simplified" License`, SPDX: "BSD-2-Clause", Common: true,
		Description: "A short permissive license: anything may be done with the work as long as the copyright " +
			"notice, the two conditions and the disclaimer travel with source and binary redistributions.",
		Permissions: permissive,
		Conditions:  []string{"include-copyright"},
		Limitations: noWarranty,
		asset:       "License/BSD-2-Clause/pristine.txt",
		swap:        [2]string{"Copyright (c) <year> <owner>.", "BSD 2-Clause License\n\nCopyright (c) [year], [fullname]"},
	},
	{
		Key: "bsd-3-clause", Name: `BSD 3-Clause "New" or "Revised" License`, SPDX: "BSD-3-Clause", Common: true,
		Description: "The two-clause BSD license with a third clause: the names of the copyright holder and " +
			"the contributors may not be used to promote derived products without permission.",
		Permissions: permissive,
		Conditions:  []string{"include-copyright"},
		Limitations: noWarranty,
		asset:       "License/BSD-3-Clause/pristine.txt",
		header:      "BSD 3-Clause License\n\nCopyright (c) [year], [fullname]\n\n",
	},
	{
		Key: "bsl-1.0", Name: "Boost Software License 1.0", SPDX: "BSL-1.0", Common: true,
		Description: "A permissive license like MIT, except that the notice only has to accompany copies in " +
			"source form: compiled binaries may be shipped without it.",
		Permissions: permissive,
		Conditions:  []string{"include-copyright--source"},
		Limitations: noWarranty,
		asset:       "License/BSL-1.0/license.txt",
		header:      "Boost Software License - Version 1.0 - August 17th, 2003\n\n",
	},
	{
		Key: "cc0-1.0", Name: "Creative Commons Zero v1.0 Universal", SPDX: "CC0-1.0", Common: true,
		Description: "Gives the work to the public domain as far as the law allows, with a fallback license " +
			"where it does not. Nothing is asked in return; patent and trademark rights are expressly kept.",
		Permissions: permissive,
		Conditions:  []string{},
		Limitations: []string{"liability", "trademark-use", "patent-use", "warranty"},
		asset:       "License/CC0-1.0/license.txt",
	},
	{
		Key: "epl-2.0", Name: "Eclipse Public License 2.0", SPDX: "EPL-2.0", Common: true,
		Description: "A weak copyleft license aimed at business use: changes to the licensed files must be " +
			"published under the same license when distributed, while separate modules may use any terms. " +
			"Contributors grant their patent rights, and a secondary license such as the GPL can be designated.",
		Permissions: withPatent,
		Conditions:  []string{"disclose-source", "include-copyright", "same-license"},
		Limitations: noWarranty,
		asset:       "License/EPL-2.0/license.txt",
	},
	{
		Key: "gpl-2.0", Name: "GNU General Public License v2.0", SPDX: "GPL-2.0", Common: true,
		Description: "The classic GNU copyleft license: whoever distributes the work or a derivative must offer " +
			"its complete source under this same license, keep the notices and mark the changes.",
		Permissions: permissive,
		Conditions:  []string{"include-copyright", "document-changes", "disclose-source", "same-license"},
		Limitations: noWarranty,
		asset:       "License/GPL-2.0/license.txt",
	},
	{
		Key: "gpl-3.0", Name: "GNU General Public License v3.0", SPDX: "GPL-3.0", Featured: true, Common: true,
		Description: "A strong copyleft license: distributed derivatives must come with their complete source " +
			"under the same license, with notices kept and changes marked. Version 3 adds an express patent " +
			"grant and provisions against locking users out of modified versions.",
		Permissions: withPatent,
		Conditions:  []string{"include-copyright", "document-changes", "disclose-source", "same-license"},
		Limitations: noWarranty,
		asset:       "License/GPL-3.0/license.txt",
	},
	{
		Key: "lgpl-2.1", Name: "GNU Lesser General Public License v2.1", SPDX: "LGPL-2.1", Common: true,
		Description: "A copyleft license for libraries: changes to the library itself must be shared under the " +
			"same terms, but programs that merely link to it may be distributed under any license.",
		Permissions: permissive,
		Conditions:  []string{"include-copyright", "disclose-source", "document-changes", "same-license--library"},
		Limitations: noWarranty,
		asset:       "License/LGPL-2.1/license.txt",
	},
	{
		Key: "mit", Name: "MIT License", SPDX: "MIT", Featured: true, Common: true,
		Description: "A short permissive license: use, copy, change, sell or sublicense the work freely, as " +
			"long as the copyright and license notice stay with it. No warranty.",
		Permissions: permissive,
		Conditions:  []string{"include-copyright"},
		Limitations: noWarranty,
		asset:       "License/MIT/pristine.txt",
		header:      "MIT License\n\nCopyright (c) [year] [fullname]\n\n",
	},
	{
		Key: "mpl-2.0", Name: "Mozilla Public License 2.0", SPDX: "MPL-2.0", Common: true,
		Description: "A file-level copyleft license: modified files must stay available under the MPL, while " +
			"they may be combined with files under other licenses, proprietary ones included. Contributors " +
			"grant their patent rights; trademarks are not licensed.",
		Permissions: withPatent,
		Conditions:  []string{"disclose-source", "include-copyright", "same-license--file"},
		Limitations: []string{"liability", "trademark-use", "warranty"},
		asset:       "License/MPL-2.0/license.txt",
	},
	{
		Key: "unlicense", Name: "The Unlicense", SPDX: "Unlicense", Common: true,
		Description: "Dedicates the work to the public domain, waiving every right it can; where that is not " +
			"possible it grants everything without conditions.",
		Permissions: permissive,
		Conditions:  []string{},
		Limitations: noWarranty,
		asset:       "License/Unlicense/license.txt",
	},
	// Beyond the commonly used list: reachable by key and as templates.
	{
		Key: "lgpl-3.0", Name: "GNU Lesser General Public License v3.0", SPDX: "LGPL-3.0",
		Description: "Version 3 of the library copyleft: changes to the library are shared under the same " +
			"terms, programs using it through its interfaces may be licensed freely; adds GPLv3's patent grant.",
		Permissions: withPatent,
		Conditions:  []string{"include-copyright", "disclose-source", "document-changes", "same-license--library"},
		Limitations: noWarranty,
		asset:       "License/LGPL-3.0/license.txt",
	},
	{
		Key: "isc", Name: "ISC License", SPDX: "ISC",
		Description: "A permissive license equivalent to MIT and BSD-2-Clause, worded more briefly.",
		Permissions: permissive,
		Conditions:  []string{"include-copyright"},
		Limitations: noWarranty,
		asset:       "License/ISC/pristine.txt",
		swap:        [2]string{"<copyright notice>", "Copyright (c) [year], [fullname]"},
	},
	{
		Key: "0bsd", Name: "BSD Zero Clause License", SPDX: "0BSD",
		Description: "A public-domain-like permissive license: no condition at all, not even keeping the notice.",
		Permissions: permissive,
		Conditions:  []string{},
		Limitations: noWarranty,
		asset:       "License/BSD-0-Clause/license.txt",
		header:      "BSD Zero Clause License\n\nCopyright (c) [year] [fullname]\n\n",
	},
	{
		Key: "zlib", Name: "zlib License", SPDX: "Zlib",
		Description: "A short permissive license: altered versions must be marked as such and the origin of " +
			"the work must not be misrepresented; the notice stays in source distributions.",
		Permissions: permissive,
		Conditions:  []string{"include-copyright--source", "document-changes"},
		Limitations: noWarranty,
		asset:       "License/Zlib/pristine.txt",
		swap:        [2]string{"<year> <copyright holders>", "[year] [fullname]"},
	},
}

var byKey = map[string]*License{}

func init() {
	sort.Slice(catalogue, func(i, j int) bool { return catalogue[i].Key < catalogue[j].Key })
	for _, l := range catalogue {
		text, err := assets.ReadLicenseFile(l.asset)
		if err != nil {
			panic("licenses: " + l.Key + ": " + err.Error())
		}
		body := strings.ReplaceAll(string(text), "\r\n", "\n")
		if l.swap[0] != "" {
			if !strings.Contains(body, l.swap[0]) {
				panic("licenses: " + l.Key + ": no " + l.swap[0])
			}
			body = strings.Replace(body, l.swap[0], l.swap[1], 1)
		}
		l.Body = l.header + strings.TrimRight(body, "\n") + "\n"
		byKey[l.Key] = l
	}
}

// Find looks a license up by key, ignoring case.
func Find(key string) (*License, bool) {
	l, ok := byKey[strings.ToLower(key)]
	return l, ok
}

// Fill is the license text for a repository: [year] and [fullname] filled.
func (l *License) Fill(year, fullname string) string {
	return strings.NewReplacer("[year]", year, "[fullname]", fullname).Replace(l.Body)
}

// Simple is the license-simple object.
func (l *License) Simple(u wire.URLs) *wire.LicenseSimple {
	url, spdx := u.LicenseURL(l.Key), l.SPDX
	return &wire.LicenseSimple{Key: l.Key, Name: l.Name, URL: &url, SpdxID: &spdx, NodeID: wire.LicenseNodeID(l.Key)}
}

// Full is the license object.
func (l *License) Full(u wire.URLs) wire.License {
	url, spdx := u.LicenseURL(l.Key), l.SPDX
	return wire.License{
		Key: l.Key, Name: l.Name, SpdxID: &spdx, URL: &url, NodeID: wire.LicenseNodeID(l.Key),
		HTMLURL:     "https://choosealicense.com/licenses/" + l.Key + "/",
		Description: l.Description, Implementation: implementation,
		Permissions: l.Permissions, Conditions: l.Conditions, Limitations: l.Limitations,
		Body: l.Body, Featured: l.Featured,
	}
}
