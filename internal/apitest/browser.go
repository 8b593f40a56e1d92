package apitest

import (
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
)

// Browser is a cookie-keeping HTTP client for hubd's sign-in and OAuth
// authorization pages (internal/oauthweb): it follows no redirect, so a
// test sees each Location, and reads the forms of the pages it gets.
type Browser struct {
	env    *Env
	Client *http.Client
	Jar    *cookiejar.Jar
	// Accept, when set, is sent with every request (a real browser sends
	// text/html; the pages of internal/web answer HTML 404s only then).
	Accept string
}

// Browser makes a browser with an empty cookie jar.
func (e *Env) Browser() *Browser {
	jar, _ := cookiejar.New(nil)
	return &Browser{env: e, Jar: jar, Client: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Page is one answer the browser got.
type Page struct {
	Status   int
	Location string
	Header   http.Header
	Body     string
}

// Get fetches a path (or an absolute URL).
func (b *Browser) Get(path string) *Page {
	b.env.T.Helper()
	return b.do("GET", path, nil)
}

// Post submits a form to a path.
func (b *Browser) Post(path string, form url.Values) *Page {
	b.env.T.Helper()
	return b.do("POST", path, form)
}

func (b *Browser) do(method, path string, form url.Values) *Page {
	b.env.T.Helper()
	u := path
	if strings.HasPrefix(path, "/") {
		u = b.env.URL + path
	}
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		b.env.T.Fatalf("browser: %v", err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if b.Accept != "" {
		req.Header.Set("Accept", b.Accept)
	}
	resp, err := b.Client.Do(req)
	if err != nil {
		b.env.T.Fatalf("browser: %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return &Page{Status: resp.StatusCode, Location: resp.Header.Get("Location"), Header: resp.Header, Body: string(raw)}
}

var (
	formRE   = regexp.MustCompile(`(?s)<form method="post" action="([^"]*)"[^>]*>(.*?)</form>`)
	hiddenRE = regexp.MustCompile(`<input type="hidden" name="([^"]*)" value="([^"]*)">`)
)

// FormFor is the hidden fields of the page's form that posts to action
// (nil when it has none).
func (p *Page) FormFor(action string) url.Values {
	for _, m := range formRE.FindAllStringSubmatch(p.Body, -1) {
		if html.UnescapeString(m[1]) != action {
			continue
		}
		v := url.Values{}
		for _, h := range hiddenRE.FindAllStringSubmatch(m[2], -1) {
			v.Set(html.UnescapeString(h[1]), html.UnescapeString(h[2]))
		}
		return v
	}
	return nil
}

// Form is the action and hidden fields of the page's form ("" and nil
// when it has none).
func (p *Page) Form() (string, url.Values) {
	m := formRE.FindStringSubmatch(p.Body)
	if m == nil {
		return "", nil
	}
	v := url.Values{}
	for _, h := range hiddenRE.FindAllStringSubmatch(m[2], -1) {
		v.Set(html.UnescapeString(h[1]), html.UnescapeString(h[2]))
	}
	return html.UnescapeString(m[1]), v
}

// Submit fills the page's form with fields and posts it.
func (b *Browser) Submit(p *Page, fields ...string) *Page {
	b.env.T.Helper()
	action, v := p.Form()
	if action == "" {
		b.env.T.Fatalf("browser: no form in page (%d):\n%s", p.Status, p.Body)
	}
	for i := 0; i+1 < len(fields); i += 2 {
		v.Set(fields[i], fields[i+1])
	}
	return b.Post(action, v)
}

// SignIn signs in through /login with a login and password, failing the
// test unless it succeeds.
func (b *Browser) SignIn(login, password string) {
	b.env.T.Helper()
	p := b.Submit(b.Get("/login"), "login", login, "password", password)
	if p.Status != http.StatusFound {
		b.env.T.Fatalf("browser: sign in as %s: %d\n%s", login, p.Status, p.Body)
	}
}

// SetPassword gives a user a password for the web sign-in (hubd's site
// administration route).
func (e *Env) SetPassword(login, password string) {
	e.T.Helper()
	e.Must(http.StatusNoContent, "PUT", "/admin/users/"+login+"/password", e.AdminToken, map[string]any{"password": password})
}

// ApproveDevice signs a browser in and approves a device flow's user
// code, as a user does at /login/device.
func (e *Env) ApproveDevice(login, password, userCode string, approve bool) {
	e.T.Helper()
	b := e.Browser()
	b.SignIn(login, password)
	confirm := b.Submit(b.Get("/login/device"), "user_code", userCode)
	if confirm.Status != http.StatusOK {
		e.T.Fatalf("browser: user code %s: %d\n%s", userCode, confirm.Status, confirm.Body)
	}
	answer := "0"
	if approve {
		answer = "1"
	}
	if p := b.Submit(confirm, "authorize", answer); p.Status != http.StatusOK {
		e.T.Fatalf("browser: device answer: %d\n%s", p.Status, p.Body)
	}
}
