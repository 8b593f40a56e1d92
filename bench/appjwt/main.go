// Command appjwt prints a GitHub App JSON web token (RS256) signed with a
// private key in PEM: issued 30 seconds ago, expiring in nine minutes.
// bench/apps.sh uses it; it is a bench tool, not part of hubd.
//
//	appjwt -key app.pem -iss 1
package main

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"log"
	"os"
	"time"
)

func main() {
	keyFile := flag.String("key", "", "PEM file of the app's private key")
	iss := flag.String("iss", "", "the app id or client id")
	flag.Parse()
	raw, err := os.ReadFile(*keyFile)
	if err != nil {
		log.Fatal(err)
	}
	b, _ := pem.Decode(raw)
	if b == nil {
		log.Fatal("appjwt: no PEM block")
	}
	k, err := x509.ParsePKCS1PrivateKey(b.Bytes)
	if err != nil {
		log.Fatal(err)
	}
	part := func(v any) string {
		j, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(j)
	}
	now := time.Now().Unix()
	in := part(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + part(map[string]any{"iat": now - 30, "exp": now + 540, "iss": *iss})
	sum := sha256.Sum256([]byte(in))
	sig, err := rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, sum[:])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(in + "." + base64.RawURLEncoding.EncodeToString(sig))
}
