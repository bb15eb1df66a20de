// Package msgtext writes values into error messages, cut so that a long or
// hostile value cannot fill the message.
package msgtext
